#pragma once
// The ranks of a run as `kinetoscope-cli ranks --json` prints them (and the Python module
// returns): per-rank table, matched collectives, straggler verdict, alignment, warnings, errors.
#include "core/analysis/ranks.h"
#include "core/analysis/workspace.h"

#include <nlohmann/json.hpp>

namespace ks::analysis {

nlohmann::json ranksReportJson(const Workspace& workspace, const RanksReport& report,
                               const std::vector<FileError>& errors, const AlignmentReport& alignment);

} // namespace ks::analysis
