#pragma once
// The JSON shape of `kinetoscope-cli memory --json` (issue 39's contract), shared by the CLI and
// the Python module: {"devices":[{"device","peak_allocated_bytes","peak_reserved_bytes",
// "peak_time_us","events","allocations","never_freed","anomalies","live_at_peak":[{"bytes","op",
// "alloc_time_us","address","python_stack"}]}],"ops":[{"device","name","calls",...}],
// "events_without_device"}. Times are µs from the trace's start.
#include "core/analysis/memoryoptable.h"
#include "core/analysis/memoryreport.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace ks::analysis {

nlohmann::json memoryReportToJson(const MemoryReport& report, const std::vector<OperatorMemoryTable>& tables);

} // namespace ks::analysis
