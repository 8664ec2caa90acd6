#pragma once
// Per-rank summaries for jobs too large to load at once: everything the cross-rank analysis
// (collective matching, waits, the straggler verdict) needs of one rank, plus what a job view
// shows of it (per-step breakdown, insights, top ops and kernels), written next to the traces
// by `kinetoscope-cli summarize` (one process per file, or spread over MPI) and read back by
// `ranks OUTDIR` and the GUI instead of the traces. The file: core/analysis/ranksummaryformat.h.
#include "core/analysis/ranksummaryfile.h"
#include "core/analysis/ranksummaryformat.h"

#include <string>
#include <vector>

namespace ks::analysis {

// Summarizes one workspace member (a rank's file, or one rank of a merged file). `traceBytes`:
// the size of the trace's JSON (inflated); the view's parts are left out, least useful first,
// while the summary is more than 1 % of it (0: no bound).
RankSummaryFile summarizeMember(const WorkspaceMember& member, std::uint64_t traceBytes);

// True for a folder holding at least one `*.summary.json` (ranks and the GUI then read those).
bool isRankSummaryFolder(const std::string& path);

struct RankSummarySet {
    std::vector<RankSummaryFile> ranks; // ascending rank
    std::vector<std::string> errors; // "FILE: why", for each summary that could not be read
};
// Read in parallel (one reader per usable core), sorted by rank.
RankSummarySet readRankSummaries(std::vector<std::string> paths);
RankSummarySet readRankSummaryFolder(const std::string& folder); // its `*.summary.json`

// The ranks below the job's world size (the largest any summary gives) that none of them is.
std::vector<int> missingRanks(const std::vector<RankSummaryFile>& ranks);

// The cross-rank analysis from summaries alone, on the absolute clock (baseTimeNanoseconds).
// The summaries' collectives move into the report's matching (pass a copy to keep them).
RanksReport analyzeRankSummaries(std::vector<RankSummaryFile> ranks);

} // namespace ks::analysis
