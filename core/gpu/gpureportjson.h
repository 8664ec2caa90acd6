#pragma once
// The GPU report as `kinetoscope-cli gpu --json` prints it (and the Python module returns):
// the window, per-GPU metrics, the step-time breakdown and nvprof's summary, times in µs.
#include "core/gpu/gpumetrics.h"
#include "core/gpu/nvprofsummary.h"
#include "core/gpu/stepbreakdown.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ks::gpu {

struct GpuReportParts {
    GpuAnalysis analysis;
    StepBreakdown breakdown;
    NvprofSummary nvprof;
};

// Kinetoscope's defaults, or with `pluginCompat` the TensorBoard plugin's (GPU-side
// ProfilerStep copies as steps, its free-time reset).
GpuReportParts computeGpuReportParts(const Trace& trace, bool pluginCompat, const facts::StepRules& steps = {});

nlohmann::json gpuReportJson(const Trace& trace, const GpuReportParts& parts);

// "9.0"; empty without the device's properties.
std::string computeCapability(const DeviceProperties* device);

} // namespace ks::gpu
