#include "core/gpu/gpureport.h"

namespace ks::gpu {

std::shared_ptr<const GpuReport> makeGpuReport(std::shared_ptr<const facts::TraceFacts> facts)
{
    auto report = std::make_shared<GpuReport>();
    const Trace& trace = *facts->trace;
    // The breakdown keeps little and holds its role unions while it runs: run before the
    // metrics are kept, so that its scratch comes and goes below the memory the report settles at.
    report->breakdown = computeStepBreakdown(trace, facts->kinds, facts->windows);
    report->analysis = analyzeGpus(trace, facts->kinds, facts->windows);
    report->nvprof = computeNvprofSummary(trace, facts->kinds);
    report->trace = facts->trace;
    report->facts = std::move(facts);
    return report;
}

std::shared_ptr<const GpuReport> makeGpuReport(std::shared_ptr<const Trace> trace)
{
    return makeGpuReport(facts::makeTraceFacts(std::move(trace)));
}

} // namespace ks::gpu
