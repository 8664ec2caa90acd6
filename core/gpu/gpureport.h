#pragma once
// Everything the GPU views show for one trace, computed once (off the GUI thread) and
// then shared read-only: the metric indices, windows, breakdown and nvprof summary.
#include "core/gpu/gpumetrics.h"
#include "core/gpu/nvprofsummary.h"
#include "core/gpu/stepbreakdown.h"

#include <memory>

namespace ks::gpu {

struct GpuReport {
    std::shared_ptr<const Trace> trace;
    GpuAnalysis analysis;
    StepBreakdown breakdown;
    NvprofSummary nvprof;
};

// Kinetoscope's defaults: GPU-side ProfilerStep copies are not steps (no double counting).
std::shared_ptr<const GpuReport> makeGpuReport(std::shared_ptr<const Trace> trace);

} // namespace ks::gpu
