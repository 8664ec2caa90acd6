#pragma once
// The diff of two traces as `kinetoscope-cli diff --json` prints it (and the Python module
// returns): both sides, speed-up, summary and the rows of each table, times in µs per step.
#include "core/analysis/diff.h"

#include <nlohmann/json.hpp>

namespace ks::analysis {

// `top`: rows per table (0: all); `families`: the kernel rows are families; `groupByShape`: the
// operator rows are per name and input shapes (each has input_shapes).
nlohmann::json diffReportJson(const DiffReport& report, std::size_t top, bool families, bool groupByShape);
// `diff --base-rank/--new-rank`: base_rank and new_rank, for a side that is one rank (>= 0).
void addDiffSideRanks(nlohmann::json& json, int baseRank, int newRank);

} // namespace ks::analysis
