#pragma once
// The JSON shape of `kinetoscope-cli insights --json` (issue 11's contract):
// {"insights":[{"id","severity","title","time_us","share","evidence":[{"name","ts_us",
// "dur_us","track"}],"advice"}]} sorted by time_us, plus explanation, figures, cause,
// the trace index/file and, per evidence, its context and bytes.
#include "core/analysis/insights.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ks::analysis {

// `traces[i]` is the trace that insights with traceIndex i came from; `files[i]` its name
// (may be empty). Evidence times are the trace's own µs (as in the file).
nlohmann::ordered_json insightsToJson(const std::vector<Insight>& insights,
                                      const std::vector<std::shared_ptr<const facts::TraceFacts>>& traces,
                                      const std::vector<std::string>& files);

} // namespace ks::analysis
