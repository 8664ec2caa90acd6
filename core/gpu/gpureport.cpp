#include "core/gpu/gpureport.h"

namespace ks::gpu {

std::shared_ptr<const GpuReport> makeGpuReport(std::shared_ptr<const Trace> trace)
{
    auto report = std::make_shared<GpuReport>();
    report->analysis = analyzeGpus(*trace);
    report->breakdown = computeStepBreakdown(*trace, classifySlices(*trace), report->analysis.windows);
    report->nvprof = computeNvprofSummary(*trace);
    report->trace = std::move(trace);
    return report;
}

} // namespace ks::gpu
