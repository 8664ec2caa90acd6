#pragma once
// One rank's summary (issue 40): everything the cross-rank analysis needs of a rank, plus what a
// job view shows of it, as `kinetoscope-cli summarize` writes it (core/analysis/ranksummaryformat.h
// reads and writes the file; docs/rank-summaries.md describes it).
#include "core/analysis/ranks.h"

#include <nlohmann/json.hpp>

namespace ks::analysis {

inline constexpr int kRankSummaryVersion = 2;
inline constexpr const char* kRankSummaryFormat = "kinetoscope-rank-summary";
inline constexpr const char* kRankSummarySuffix = ".summary.json";

struct RankSummaryFile {
    TraceIdentity identity; // read back, runKey is a hash of the trace's (equal for the ranks of one run)
    std::int64_t baseTimeNs = 0; // the trace's baseTimeNanoseconds: times below + this = absolute clock
    TimeNs traceStart = 0, traceEnd = 0;
    std::uint64_t traceBytes = 0; // size of the JSON it was made from (inflated when gzipped)
    std::vector<StepSpan> steps; // the rank's own time, as its trace has them
    RankSummary totals; // the rank's own part (the cross-rank fields are zero)
    std::vector<CollectiveKernel> collectives; // in time order, with their args (slice ids dropped)
    // For a job view: "step_breakdown", "insights", "top_ops", "top_kernels". Written; the readers
    // skip it (the cross-rank analysis and the job view's rows need none of it).
    nlohmann::json view;
};

} // namespace ks::analysis
