#pragma once
// Everything the GPU views show for one trace, computed once (off the GUI thread) and
// then shared read-only: the metric indices, windows, breakdown and nvprof summary.
#include "core/facts/tracefacts.h"
#include "core/gpu/gpumetrics.h"
#include "core/gpu/nvprofsummary.h"
#include "core/gpu/stepbreakdown.h"

#include <memory>

namespace ks::gpu {

struct GpuReport {
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const facts::TraceFacts> facts; // the slice kinds and windows used
    GpuAnalysis analysis;
    StepBreakdown breakdown;
    NvprofSummary nvprof;
};

// Kinetoscope's defaults: GPU-side ProfilerStep copies are not steps (no double counting).
// From the trace's facts (kinds and step windows classified once, as the insights use them).
std::shared_ptr<const GpuReport> makeGpuReport(std::shared_ptr<const facts::TraceFacts> facts);
std::shared_ptr<const GpuReport> makeGpuReport(std::shared_ptr<const Trace> trace);

} // namespace ks::gpu
