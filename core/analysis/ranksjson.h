#pragma once
// The ranks of a run as `kinetoscope-cli ranks --json` prints them (and the Python module
// returns): per-rank table, matched collectives, straggler verdict, alignment, warnings, errors.
#include "core/analysis/ranks.h"
#include "core/analysis/workspace.h"

#include <nlohmann/json.hpp>

namespace ks::analysis {

// `identities[m]` names report.ranks' member m; `warnings` are the workspace's (different
// runs, duplicate ranks, ...). Ranks from summaries have identities but no workspace.
// `stepsSources[m]` is the rule that gave member m's steps (may be empty: not known).
nlohmann::json ranksReportJson(const std::vector<TraceIdentity>& identities, const std::vector<std::string>& warnings,
                               const RanksReport& report, const std::vector<FileError>& errors,
                               const AlignmentReport& alignment, const std::vector<std::string>& stepsSources = {});
nlohmann::json ranksReportJson(const Workspace& workspace, const RanksReport& report,
                               const std::vector<FileError>& errors, const AlignmentReport& alignment);

} // namespace ks::analysis
