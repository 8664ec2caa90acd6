#include "core/facts/stepwindows.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace ks::facts {

namespace {

constexpr TimeNs kMaxTime = std::numeric_limits<TimeNs>::max();
constexpr TimeNs kMinTime = std::numeric_limits<TimeNs>::min();

struct DeviceSpan {
    TimeNs minStart = kMaxTime;
    TimeNs maxEnd = kMinTime;
    std::uint64_t count = 0;
    void add(TimeNs start, TimeNs end, std::uint64_t n = 1)
    {
        minStart = std::min(minStart, start);
        maxEnd = std::max(maxEnd, end);
        count += n;
    }
};

bool isStepSlice(const Trace& trace, SliceId s, PluginKind kind, GpuStepAnnotations gpuSteps)
{
    const bool candidate = kind == PluginKind::Operator || kind == PluginKind::Annotation
        || (kind == PluginKind::GpuAnnotation && gpuSteps == GpuStepAnnotations::AsSteps);
    return candidate && profilerStepNumber(trace.str(trace.slices().name[s])) >= 0;
}

void setGlobalWindow(const Trace& trace, const std::vector<PluginKind>& kinds, PluginWindows& w)
{
    const auto& slices = trace.slices();
    TimeNs lo = kMaxTime, hi = kMinTime;
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (kinds[s] == PluginKind::TraceSpan && trace.str(slices.name[s]) == "PyTorch Profiler (0)") {
            w.globalStart = slices.start[s];
            w.globalEnd = slices.end(s);
            return;
        }
        if (kinds[s] != PluginKind::None) {
            lo = std::min(lo, slices.start[s]);
            hi = std::max(hi, slices.end(s));
        }
    }
    if (lo <= hi) {
        w.globalStart = lo;
        w.globalEnd = hi;
    }
}

// Steps 1-5 of §2: extend each step to the device work its runtime calls launched. trimTail:
// the plugin's tail trim, for ProfilerStep (the profiler stops inside its last step; ranges
// found otherwise close with their iteration).
void adjustToDevice(const Trace& trace, const std::vector<PluginKind>& kinds, std::vector<StepWindow>& steps,
                    bool trimTail)
{
    const auto& slices = trace.slices();
    const std::vector<SliceId> runtimes =
        slicesInFileOrder(trace, kinds, [](PluginKind k) { return k == PluginKind::Runtime; });
    std::unordered_map<std::int64_t, std::uint32_t> runtimeByCorrelation;
    runtimeByCorrelation.reserve(runtimes.size());
    for (std::uint32_t i = 0; i < runtimes.size(); ++i) {
        const std::int64_t c = slices.correlation[runtimes[i]];
        if (c != kNoId)
            runtimeByCorrelation.emplace(c, i);
    }
    // Device work per runtime call, and which runtime each device event belongs to.
    std::vector<DeviceSpan> launched(runtimes.size());
    std::vector<std::pair<SliceId, std::uint32_t>> deviceEvents; // (slice, runtime or kNoIndex)
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (!isDeviceKind(kinds[s]))
            continue;
        std::uint32_t r = kNoIndex;
        const auto it = runtimeByCorrelation.find(slices.correlation[s]);
        if (slices.correlation[s] != kNoId && it != runtimeByCorrelation.end()) {
            r = it->second;
            launched[r].add(slices.start[s], slices.end(s));
        }
        deviceEvents.emplace_back(s, r);
    }

    // Forward-only walk of the runtime calls against the steps.
    std::vector<DeviceSpan> stepDevice(steps.size());
    std::vector<bool> runtimeInStep(runtimes.size(), false);
    bool anyMatched = false;
    std::size_t i = 0;
    for (std::uint32_t r = 0; r < runtimes.size() && i < steps.size(); ++r) {
        const TimeNs rs = slices.start[runtimes[r]], re = slices.end(runtimes[r]);
        while (i < steps.size()) {
            if (rs < steps[i].hostStart)
                break;
            if (re <= steps[i].hostEnd) {
                if (launched[r].count > 0) {
                    stepDevice[i].add(launched[r].minStart, launched[r].maxEnd, launched[r].count);
                    runtimeInStep[r] = true;
                    anyMatched = true;
                }
                break;
            }
            if (rs < steps[i].hostEnd)
                break;
            ++i;
        }
    }
    if (!anyMatched)
        return;

    TimeNs prev = steps[0].hostStart;
    if (stepDevice[0].count > 0) {
        for (const auto& [s, r] : deviceEvents) {
            const bool matched = r != kNoIndex && runtimeInStep[r];
            if (!matched && slices.end(s) < stepDevice[0].minStart)
                prev = std::max(prev, slices.end(s));
        }
    }
    for (std::size_t k = 0; k < steps.size(); ++k) {
        StepWindow& step = steps[k];
        step.deviceEventCount = stepDevice[k].count;
        step.start = std::max(prev, step.hostStart);
        step.end =
            stepDevice[k].count > 0 ? std::max(step.hostEnd, stepDevice[k].maxEnd) : std::max(step.hostEnd, step.start);
        step.end = std::max(step.end, step.start);
        prev = step.end;
    }

    // Tail trim: drop steps after the last one with device work, and that one too if it is
    // clearly incomplete (fewer than 80 % of the previous step's device events).
    if (trimTail && steps.size() > 1) {
        std::size_t last = steps.size();
        while (last > 0 && steps[last - 1].deviceEventCount == 0)
            --last;
        if (last > 0) {
            std::size_t keep = last;
            const std::size_t lastWorking = last - 1;
            if (lastWorking > 0
                && double(steps[lastWorking - 1].deviceEventCount) * 0.8 > double(steps[lastWorking].deviceEventCount))
                keep = lastWorking;
            steps.resize(keep);
        }
    }
}

} // namespace

std::vector<SliceId> slicesInFileOrder(const Trace& trace, const std::vector<PluginKind>& kinds,
                                       bool (*accept)(PluginKind))
{
    const auto& slices = trace.slices();
    std::vector<SliceId> out;
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (accept(kinds[s]))
            out.push_back(s);
    }
    std::sort(out.begin(), out.end(), [&](SliceId a, SliceId b) {
        if (slices.start[a] != slices.start[b])
            return slices.start[a] < slices.start[b];
        return slices.rawOffset[a] < slices.rawOffset[b];
    });
    return out;
}

PluginWindows computePluginWindows(const Trace& trace, const std::vector<PluginKind>& kinds,
                                   GpuStepAnnotations gpuSteps, const StepRules& rules)
{
    const auto& slices = trace.slices();
    PluginWindows w;
    setGlobalWindow(trace, kinds, w);

    std::vector<SliceId> stepSlices;
    TimeNs hostLo = kMaxTime, hostHi = kMinTime;
    for (SliceId s = 0; s < slices.size(); ++s) {
        const bool step = isStepSlice(trace, s, kinds[s], gpuSteps);
        if (step)
            stepSlices.push_back(s);
        if (step || kinds[s] == PluginKind::Operator || kinds[s] == PluginKind::Python) {
            hostLo = std::min(hostLo, slices.start[s]);
            hostHi = std::max(hostHi, slices.end(s));
        }
    }
    std::sort(stepSlices.begin(), stepSlices.end(), [&](SliceId a, SliceId b) {
        if (slices.start[a] != slices.start[b])
            return slices.start[a] < slices.start[b];
        return slices.rawOffset[a] < slices.rawOffset[b];
    });
    w.hasProfilerSteps = !stepSlices.empty();
    // Without ProfilerStep: the user's choice, counter labels, Optimizer.step (StepFinder);
    // the plugin's emulation (AsSteps) knows ProfilerStep only, as the plugin did.
    const FoundSteps found = w.hasProfilerSteps   ? profilerStepOrigin(trace)
        : gpuSteps == GpuStepAnnotations::AsSteps ? FoundSteps{}
                                                  : StepFinder(rules).find(trace);
    w.source = found.source;
    w.sourceName = found.sourceName();
    for (const FoundStep& step : found.steps) {
        hostLo = std::min(hostLo, step.start);
        hostHi = std::max(hostHi, step.end);
    }
    w.hasHostEvents = hostLo <= hostHi;
    if (!w.hasHostEvents) {
        // No ops and no steps (a collected trace of a non-PyTorch program): the window is the
        // GPU's busy span, not the process lifetime that runtime calls and NVTX ranges cover
        // (a long start-up would make a busy GPU read almost idle). The plugin itself uses
        // the global window here; kineto traces always have host events.
        TimeNs deviceLo = kMaxTime, deviceHi = kMinTime;
        for (SliceId s = 0; s < slices.size(); ++s) {
            if (isDeviceKind(kinds[s])) {
                deviceLo = std::min(deviceLo, slices.start[s]);
                deviceHi = std::max(deviceHi, slices.end(s));
            }
        }
        w.stepsStart = deviceLo <= deviceHi ? deviceLo : w.globalStart;
        w.stepsEnd = deviceLo <= deviceHi ? deviceHi : w.globalEnd;
        return w;
    }

    for (const FoundStep& range : found.steps) {
        StepWindow step;
        step.name = std::to_string(range.number);
        step.hostStart = range.start;
        step.hostEnd = range.end;
        step.slice = range.slice;
        w.steps.push_back(step);
    }
    if (stepSlices.empty() && found.steps.empty()) {
        StepWindow step;
        step.name = "0";
        step.hostStart = hostLo;
        step.hostEnd = hostHi;
        w.steps.push_back(step);
    }
    for (SliceId s : stepSlices) {
        StepWindow step;
        step.name = std::to_string(profilerStepNumber(trace.str(slices.name[s])));
        step.hostStart = slices.start[s];
        step.hostEnd = slices.end(s);
        step.slice = s;
        step.gpuSideCopy = kinds[s] == PluginKind::GpuAnnotation;
        w.steps.push_back(step);
    }
    for (auto& step : w.steps) {
        step.start = step.hostStart;
        step.end = step.hostEnd;
    }
    adjustToDevice(trace, kinds, w.steps, w.hasProfilerSteps);
    w.stepsStart = w.steps.front().start;
    w.stepsEnd = w.steps.back().end;
    return w;
}

} // namespace ks::facts
