#pragma once
// The TensorBoard plugin's time windows (docs/gpu-metrics.md §2): ProfilerStep steps with
// its device adjustment and tail trim, the steps window [S, E] and the global window. Traces
// without ProfilerStep take their steps from the StepFinder's other rules, adjusted alike.
#include "core/facts/pluginkind.h"
#include "core/facts/stepfinder.h"
#include "core/model/trace.h"

#include <string>
#include <vector>

namespace ks::facts {

enum class GpuStepAnnotations : std::uint8_t {
    Ignore, // Kinetoscope's default: a GPU-side ProfilerStep copy is not a step of its own
    AsSteps, // the plugin's quirk: each copy becomes an extra zero-length step
};

struct StepWindow {
    std::string name; // the step's number: after '#', the label's counter ("0" when the trace has no steps)
    TimeNs start = 0; // adjusted
    TimeNs end = 0;
    TimeNs hostStart = 0; // the step's host range (the ProfilerStep event itself)
    TimeNs hostEnd = 0;
    SliceId slice = kNoSlice;
    bool gpuSideCopy = false; // a gpu_user_annotation ProfilerStep (AsSteps only)
    std::uint64_t deviceEventCount = 0;
};

struct PluginWindows {
    std::vector<StepWindow> steps; // kept steps, in order
    TimeNs stepsStart = 0, stepsEnd = 0; // [S, E]
    TimeNs globalStart = 0, globalEnd = 0; // [G0, G1]
    bool hasHostEvents = false; // without them [S, E] is meaningless (§7)
    bool hasProfilerSteps = false;
    StepSource source = StepSource::None; // the rule that gave the steps
    std::string sourceName = "none"; // FoundSteps::sourceName(): "ProfilerStep", "labels:step<N>", ...
    TimeNs stepsSpan() const { return stepsEnd - stepsStart; }
    TimeNs globalSpan() const { return globalEnd - globalStart; }
};

// `kinds` is classifySlices(trace). Without ProfilerStep ranges, steps by `rules` (not with
// AsSteps: the plugin's emulation has ProfilerStep steps only).
PluginWindows computePluginWindows(const Trace& trace, const std::vector<PluginKind>& kinds,
                                   GpuStepAnnotations gpuSteps = GpuStepAnnotations::Ignore,
                                   const StepRules& rules = {});

// Slice ids of one kind sorted by (start, file order): the plugin's stable sort by ts.
std::vector<SliceId> slicesInFileOrder(const Trace& trace, const std::vector<PluginKind>& kinds,
                                       bool (*accept)(PluginKind));

} // namespace ks::facts
