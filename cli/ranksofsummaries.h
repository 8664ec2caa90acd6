#pragma once
// The job's cross-rank result from rank summaries, shared by `ranks OUTDIR` (ranks_command.cpp,
// which defines it) and `summarize --mpi` (process 0 writes OUTDIR/job.ranks.json with it).
#include <ostream>
#include <string>
#include <vector>

namespace ks::cli {

struct JobOfSummaries {
    std::string verdict; // the straggler verdict
    std::vector<int> missingRanks; // below the world size, without a summary
    std::string missingText; // "rank(s) 1 of world size 2 have no summary"
};

// `ranks --json` of these rank summaries (of `folder`) into `out`, plus "missing_ranks".
JobOfSummaries writeRanksOfSummaries(const std::vector<std::string>& summaries, const std::string& folder,
                                     std::ostream& out);

} // namespace ks::cli
