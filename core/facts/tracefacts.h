#pragma once
// Facts about one trace that several analyses need (insights, diff, multi-rank), computed
// once off the GUI thread and then shared read-only, like gpu::GpuReport for the GPU views:
// the plugin kind of every slice, the step windows, the links between host calls and GPU work
// (by correlation id, by External id, and by nesting on the host timeline), and the [memory]
// events (read back from the source once, not for each range the operator table is asked for).
//
// The GPU report (gpu::makeGpuReport: metrics, step breakdown, nvprof summary) takes its
// kinds and windows from here, and the operator table its GPU attribution (links) and memory.
#include "core/facts/correlationindex.h"
#include "core/facts/memoryevents.h"
#include "core/facts/pluginkind.h"
#include "core/facts/stepwindows.h"
#include "core/model/trace.h"

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace ks::facts {

struct TraceFacts {
    std::shared_ptr<const Trace> trace;
    StepRules stepRules; // what the steps were found by (the user's choice)
    std::vector<facts::PluginKind> kinds; // facts::classifySlices
    facts::PluginWindows windows; // facts::computePluginWindows, GPU-side step copies ignored
    CorrelationIndex links;
    MemoryTimeline memory; // the [memory] events (profile_memory=True), for every operator table

    // True when some rule found steps (ProfilerStep, the user's choice, counter labels,
    // Optimizer.step; windows.sourceName says which): analyses then count only inside them.
    bool hasSteps() const { return windows.source != StepSource::None && !windows.steps.empty(); }
    // Number of steps to average over (1 when the trace has none: the whole trace is one).
    std::size_t stepCount() const { return windows.steps.empty() ? 1 : windows.steps.size(); }
    // Mean length of a step (its host range joined with its adjusted device window), or the
    // steps window without steps.
    TimeNs meanStepTime() const;
    // Index of the step whose host range [hostStart, hostEnd] holds [start, end]; -1 if none.
    // Without steps every interval belongs to step 0 (the whole trace).
    int hostStepOf(TimeNs start, TimeNs end) const;
    // Step of a GPU op: its launch's host step when it has one, else the adjusted window
    // holding its start; -1 if none.
    int deviceStepOf(SliceId gpuOp) const;
};

std::shared_ptr<const TraceFacts> makeTraceFacts(std::shared_ptr<const Trace> trace, const StepRules& rules = {});

// The facts of `trace` by `rules` that some holder (e.g. a GPU report) still keeps, else new
// ones: the GUI's analyses of one trace (GPU report, insights, the operator table for every
// range) share one set instead of each building its own. Thread-safe; callers asking while the
// facts are being built wait for them. Nothing is cached past its last holder.
std::shared_ptr<const TraceFacts> sharedTraceFacts(const std::shared_ptr<const Trace>& trace,
                                                   const StepRules& rules = {});

} // namespace ks::facts
