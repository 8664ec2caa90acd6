#pragma once
// A job opened from its rank summaries alone (issue 40): the cross-rank analysis, the
// ranks × steps heat map of the waiting each rank caused, and every rank's collectives as one
// timeline row (a small Trace: one process per rank, one track of its collectives), so that a
// 1,024-rank job is shown without loading a trace; the GUI then loads chosen ranks in full.
#include "core/analysis/ranksummary.h"

#include <memory>
#include <string_view>

namespace ks::analysis {

// Rows are ranks, columns steps (the step of the last arrival, as RanksReport counts them).
struct WaitHeatMap {
    std::vector<int> ranks; // ascending
    std::vector<long long> steps; // ascending; -1: collectives before a rank's first step
    std::vector<TimeNs> cells; // ranks.size() × steps.size(), row by row: the waiting caused
    TimeNs max = 0;
    TimeNs at(std::size_t row, std::size_t column) const { return cells[row * steps.size() + column]; }
};
WaitHeatMap waitHeatMap(const RanksReport& report, const std::vector<int>& ranks);

// Marks collectiveRows (and its subsets) in their metadata: views that analyse the timeline's
// traces say what a summary leaves out instead of reporting an empty result.
inline constexpr std::string_view kSummaryRowsMetadata = "kinetoscope_rank_summary_rows";
bool isSummaryRows(const Trace& trace);

struct JobView {
    std::string folder;
    std::vector<RankSummaryFile> ranks; // ascending rank; their collectives are in report.matching
    std::vector<std::string> errors; // "FILE: why" for each summary that could not be read
    RanksReport report; // member i is ranks[i]
    WaitHeatMap heatMap;
    // The process of pid i is ranks[i]: one track of its collectives, on the job's axis (ranks[0]'s clock).
    std::shared_ptr<const Trace> collectiveRows;

    // collectiveRows with only the rows of ranks[i] for these i (the ranks not open in full).
    std::shared_ptr<const Trace> collectiveRowsFor(const std::vector<std::uint32_t>& members) const;

    std::int64_t axisBaseTimeNs() const { return ranks.empty() ? 0 : ranks.front().baseTimeNs; }
    const RankSummaryFile* rank(int number) const; // nullptr when the job lacks it
    // Worth opening in full: the straggler, the `waiters` ranks that waited most, rank 0.
    std::vector<int> suggestedRanks(std::size_t waiters = 2) const;
};

// Reads the folder's summaries and analyses them; a summary that cannot be read is named in
// errors and left out. Throws nothing for bad input: a folder with no readable summary gives a
// view without ranks.
JobView openJobView(const std::string& folder);

} // namespace ks::analysis
