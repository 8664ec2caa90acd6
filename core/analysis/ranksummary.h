#pragma once
// Per-rank summaries for jobs too large to load at once: everything the cross-rank analysis
// (collective matching, waits, the straggler verdict) needs of one rank, plus what a job view
// shows of it (per-step breakdown, insights, top ops and kernels), written next to the traces
// by `kinetoscope-cli summarize` (one process per file, or spread over MPI) and read back by
// `ranks OUTDIR` and the GUI instead of the traces. The format is JSON, versioned
// (docs/rank-summaries.md); a reader refuses another version with a message.
#include "core/analysis/ranks.h"

#include <nlohmann/json.hpp>

#include <string>
#include <variant>
#include <vector>

namespace ks::analysis {

inline constexpr int kRankSummaryVersion = 1;
inline constexpr const char* kRankSummaryFormat = "kinetoscope-rank-summary";
inline constexpr const char* kRankSummarySuffix = ".summary.json";

struct RankSummaryFile {
    TraceIdentity identity;
    std::int64_t baseTimeNs = 0; // the trace's baseTimeNanoseconds: times below + this = absolute clock
    TimeNs traceStart = 0, traceEnd = 0;
    std::uint64_t traceBytes = 0; // size of the file it was made from
    std::vector<StepSpan> steps; // the rank's own time, as its trace has them
    RankSummary totals; // the rank's own part (the cross-rank fields are zero)
    std::vector<CollectiveKernel> collectives; // in time order, with their args (slice ids dropped)
    nlohmann::json view; // for the job view: "step_breakdown", "insights", "top_ops", "top_kernels"
};

// Summarizes one workspace member (a rank's file, or one rank of a merged file).
RankSummaryFile summarizeMember(const WorkspaceMember& member, std::uint64_t traceBytes);

nlohmann::json rankSummaryToJson(const RankSummaryFile& summary);
// The summary, or why not (malformed, another format or version), naming `where`.
std::variant<RankSummaryFile, std::string> rankSummaryFromJson(const nlohmann::json& json, const std::string& where);
std::variant<RankSummaryFile, std::string> readRankSummary(const std::string& path);

// True for a folder holding at least one `*.summary.json` (ranks and the GUI then read those).
bool isRankSummaryFolder(const std::string& path);

struct RankSummarySet {
    std::vector<RankSummaryFile> ranks; // ascending rank
    std::vector<std::string> errors; // "FILE: why", for each summary that could not be read
};
RankSummarySet readRankSummaryFolder(const std::string& folder);

// The cross-rank analysis from summaries alone, on the absolute clock (baseTimeNanoseconds).
// The summaries' collectives move into the report's matching (pass a copy to keep them).
RanksReport analyzeRankSummaries(std::vector<RankSummaryFile> ranks);

} // namespace ks::analysis
