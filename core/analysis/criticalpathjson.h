#pragma once
// The JSON shape of `kinetoscope-cli critical-path --json` (issue 36's contract), shared by the
// CLI and the Python module: {"steps":[{"step","start_us","end_us","length_us",
// "what_if_length_us" (with what-ifs),"breakdown":{"cpu_op",...},"segments":[{"kind","name",
// "start_us","dur_us","track"}],"warnings"}],"what_if":[...],"warnings":[...]}.
#include "core/analysis/criticalpath.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ks::analysis {

// The warnings of the steps' solutions (dependencies against time or in cycles), one per step
// that has some, appended to `warnings`.
void appendStepWarnings(const std::vector<StepCriticalPath>& steps, std::vector<std::string>& warnings);

nlohmann::json criticalPathReportJson(const std::vector<StepCriticalPath>& steps, const std::vector<WhatIf>& whatIfs,
                                      const std::vector<std::string>& warnings);

} // namespace ks::analysis
