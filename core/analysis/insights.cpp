#include "core/analysis/insights.h"

#include "core/analysis/insights_detectors.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <limits>

namespace ks::analysis {

std::string_view severityName(Severity severity)
{
    switch (severity) {
    case Severity::High: return "high";
    case Severity::Medium: return "medium";
    case Severity::Low: break;
    }
    return "low";
}

Severity severityForShare(double share)
{
    if (share >= thresholds::kHighShare)
        return Severity::High;
    if (share >= thresholds::kMediumShare)
        return Severity::Medium;
    return Severity::Low;
}

std::string_view idleCauseName(IdleCause cause)
{
    switch (cause) {
    case IdleCause::DataLoading: return "data loading";
    case IdleCause::HostSync: return "host sync";
    case IdleCause::LaunchBound: return "CPU launch-bound";
    case IdleCause::Unknown: break;
    }
    return "unknown";
}

std::string_view idleCauseKey(IdleCause cause)
{
    switch (cause) {
    case IdleCause::DataLoading: return "data_loading";
    case IdleCause::HostSync: return "host_sync";
    case IdleCause::LaunchBound: return "launch_bound";
    case IdleCause::Unknown: break;
    }
    return "unknown";
}

void sortInsights(std::vector<Insight>& insights)
{
    std::stable_sort(insights.begin(), insights.end(), [](const Insight& a, const Insight& b) {
        if (a.timeUs != b.timeUs)
            return a.timeUs > b.timeUs;
        if (a.id != b.id)
            return a.id < b.id;
        return a.traceIndex < b.traceIndex;
    });
}

Evidence evidenceFor(const facts::TraceFacts& facts, SliceId s)
{
    const Trace& trace = *facts.trace;
    const auto& slices = trace.slices();
    Evidence e;
    e.slice = s;
    e.start = slices.start[s];
    e.duration = slices.duration[s];
    e.track = trace.trackOf(s);
    e.name = std::string(trace.str(slices.name[s]));
    if (const GpuOpInfo* info = trace.gpuOpInfo(s))
        e.bytes = info->bytes;
    // A GPU op's context is its launch's; a host call's is its own op and frame.
    SliceId host = s;
    if (facts::isDeviceKind(facts.kinds[s]))
        host = facts.links.launchOf(s);
    if (host == kNoSlice)
        return e;
    if (facts::CorrelationIndex::isLaunchClass(trace.classOf(host))) {
        const SliceId op = facts.links.opOf(host);
        if (op != kNoSlice)
            e.context = std::string(trace.str(slices.name[op]));
    }
    const SliceId frame = facts::pythonFrameOf(trace, host);
    if (frame != kNoSlice) {
        if (!e.context.empty())
            e.context += " in ";
        e.context += trace.str(slices.name[frame]);
    }
    return e;
}

namespace detail {

std::string printfString(const char* format, ...)
{
    va_list args;
    va_start(args, format);
    char buffer[512];
    const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    return std::string(buffer, n < 0 ? 0 : std::min<std::size_t>(std::size_t(n), sizeof buffer - 1));
}

std::string formatUs(double us)
{
    // Rounded to nearest (negative values too); clamped so that no double converts out of range.
    return formatDuration(TimeNs(std::llround(std::clamp(us * 1000.0, -9.2e18, 9.2e18))));
}

bool isSyncCall(std::string_view name)
{
    return name == "cudaStreamSynchronize" || name == "cudaDeviceSynchronize" || name == "cudaEventSynchronize"
        || name == "cuStreamSynchronize" || name == "cuCtxSynchronize" || name == "cuEventSynchronize";
}

namespace {

bool isDeviceWideSync(std::string_view name) { return name == "cudaDeviceSynchronize" || name == "cuCtxSynchronize"; }

bool isDataLoaderName(std::string_view name) { return name.find("DataLoader") != std::string_view::npos; }

// A copy call the host waits in: cudaMemcpy (not Async) always, an async copy when it
// lands in pageable host memory (the driver stages it synchronously).
bool isBlockingCopy(const facts::TraceFacts& facts, SliceId call, std::string_view name)
{
    if (name == "cudaMemcpy" || name == "cudaMemcpy2D" || name == "cuMemcpyDtoH_v2" || name == "cuMemcpyDtoH")
        return true;
    if (name.find("Memcpy") == std::string_view::npos || name.find("Async") == std::string_view::npos)
        return false;
    const Trace& trace = *facts.trace;
    for (const SliceId op : facts.links.gpuOpsOf(call)) {
        const std::string_view opName = trace.str(trace.slices().name[op]);
        if (opName.find("DtoH") != std::string_view::npos && opName.find("Pageable") != std::string_view::npos)
            return true;
    }
    return false;
}

} // namespace

InsightContext::InsightContext(const facts::TraceFacts& f, PeakOverrides userPeaks)
    : facts(f)
    , trace(*f.trace)
    , peaks(std::move(userPeaks))
{
    stepCount = double(facts.stepCount());
    meanStepNs = double(facts.meanStepTime());
    const auto& slices = trace.slices();
    // The last call that launched GPU work: a sync after it only waits for the end.
    TimeNs lastLaunchStart = std::numeric_limits<TimeNs>::min();
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (facts::CorrelationIndex::isLaunchClass(trace.classOf(s)) && !facts.links.gpuOpsOf(s).empty())
            lastLaunchStart = std::max(lastLaunchStart, slices.start[s]);
    }
    std::vector<gpu::IntervalSet::Interval> loading;
    std::vector<bool> hasGpuWork(trace.processes().size()); // by process
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (facts::isDeviceKind(facts.kinds[s]))
            hasGpuWork[trace.tracks()[trace.trackOf(s)].process] = true;
        const SliceClass c = trace.classOf(s);
        if (facts::CorrelationIndex::isLaunchClass(c)) {
            const std::string_view name = trace.str(slices.name[s]);
            // With steps, being inside one decides; without, a device-wide sync after the last
            // launch only waits for the end of the program (torch.cuda.synchronize() at exit).
            const bool trailing = slices.start[s] > lastLaunchStart && isDeviceWideSync(name);
            const bool counts = facts.hasSteps() ? hostInSteps(s) : !trailing;
            if (counts && (isSyncCall(name) || isBlockingCopy(facts, s, name)))
                hostSyncs.push_back(s);
        } else if ((c == SliceClass::CpuOp || c == SliceClass::UserAnnotation)
                   && isDataLoaderName(trace.str(slices.name[s])) && hostInSteps(s)) {
            dataLoaderSlices.push_back(s);
            loading.emplace_back(slices.start[s], slices.end(s));
        }
    }
    const auto byStart = [&](SliceId a, SliceId b) { return slices.start[a] < slices.start[b]; };
    std::sort(hostSyncs.begin(), hostSyncs.end(), byStart);
    std::sort(dataLoaderSlices.begin(), dataLoaderSlices.end(), byStart);
    dataLoading = gpu::IntervalSet::unionOf(std::move(loading));
    gpuCount = double(std::max<std::ptrdiff_t>(std::count(hasGpuWork.begin(), hasGpuWork.end(), true), 1));
}

bool InsightContext::hostInSteps(SliceId s) const
{
    const auto& slices = trace.slices();
    return facts.hostStepOf(slices.start[s], slices.end(s)) >= 0;
}

void InsightContext::setTime(Insight& insight, double totalNs) const
{
    insight.timeUs = perStepUs(totalNs);
    insight.share = shareOf(insight.timeUs);
    insight.severity = severityForShare(insight.share);
}

} // namespace detail

std::vector<Insight> findInsights(const facts::TraceFacts& facts, const PeakOverrides& peaks)
{
    using namespace detail;
    std::vector<Insight> out;
    if (facts.windows.steps.empty())
        return out; // no host events: nothing to put per step
    const InsightContext context(facts, peaks);
    const std::vector<IdleGap> gaps = findIdleGaps(context);
    for (auto found : {detectHostSync(context, gaps), detectPageableCopy(context), detectMemcpyDtod(context),
                       detectSlowDataLoader(context), detectFp32Gemm(context), detectLowOccupancy(context),
                       detectLowGemmEfficiency(context), detectGpuIdle(context, gaps), detectLaunchBound(context, gaps),
                       detectMemoryGrowth(context)}) {
        if (found)
            out.push_back(std::move(*found));
    }
    sortInsights(out);
    return out;
}

std::vector<Insight> findInsights(std::span<const std::shared_ptr<const facts::TraceFacts>> traces,
                                  const PeakOverrides& peaks)
{
    std::vector<Insight> out;
    for (std::size_t i = 0; i < traces.size(); ++i) {
        for (Insight& insight : findInsights(*traces[i], peaks)) {
            insight.traceIndex = int(i);
            out.push_back(std::move(insight));
        }
    }
    // Findings across ranks: traceIndex is the trace of the rank they blame.
    if (auto straggler = detail::detectStraggler(traces))
        out.push_back(std::move(*straggler));
    sortInsights(out);
    return out;
}

} // namespace ks::analysis
