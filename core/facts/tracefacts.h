#pragma once
// Facts about one trace that several analyses need (insights, diff, multi-rank), computed
// once off the GUI thread and then shared read-only, like gpu::GpuReport for the GPU views:
// the plugin kind of every slice, the step windows, the links between host calls and GPU work
// (by correlation id, by External id, and by nesting on the host timeline), and the [memory]
// events (read back from the source once, not for each range the operator table is asked for).
//
// The GPU report (gpu::makeGpuReport: metrics, step breakdown, nvprof summary) takes its
// kinds and windows from here, and the operator table its GPU attribution (links) and memory.
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

// Runtime/driver launches <-> GPU ops <-> CPU ops. Lookups are binary searches over sorted
// (id, slice) pairs: no per-slice arrays beyond what the links need. Refers to the trace it
// was built from, which must outlive it (TraceFacts keeps both together).
class CorrelationIndex {
public:
    CorrelationIndex() = default;
    CorrelationIndex(const Trace& trace, const std::vector<facts::PluginKind>& kinds);

    // The runtime or driver call that launched a kernel/memcpy/memset, or kNoSlice.
    SliceId launchOf(SliceId gpuOp) const;
    // The GPU ops a runtime/driver call launched (usually 0 or 1), by start time.
    std::span<const SliceId> gpuOpsOf(SliceId launch) const;
    // The runtime/driver calls made under a CPU op (same External id), by start time.
    std::span<const SliceId> launchesOf(SliceId cpuOp) const;
    // The CPU op a runtime/driver call was made under: the op with its External id, else
    // the innermost CPU op enclosing it on its thread; kNoSlice when none.
    SliceId opOf(SliceId launch) const;

    // True for cuda_runtime/cuda_driver slices (what launches GPU work or syncs with it).
    static bool isLaunchClass(SliceClass c) { return c == SliceClass::CudaRuntime || c == SliceClass::CudaDriver; }

    // Slices grouped by an id (correlation or External id), sorted by (id, start).
    class Links {
    public:
        void add(std::int64_t id, SliceId s) { m_pairs.emplace_back(id, s); }
        void finish(const Trace& trace);
        std::span<const SliceId> find(std::int64_t id) const;

    private:
        std::vector<std::pair<std::int64_t, SliceId>> m_pairs; // until finish()
        std::vector<std::int64_t> m_ids;
        std::vector<SliceId> m_slices;
    };

private:
    const Trace* m_trace = nullptr;
    Links m_launchByCorrelation;
    Links m_gpuOpByCorrelation;
    Links m_launchByExternalId;
    Links m_opByExternalId;
};

// The innermost slice of `lane` on the slice's track that encloses [start, end] of `s` and
// satisfies `accept`; kNoSlice when none. E.g. the Python frame around a runtime call.
SliceId enclosingSlice(const Trace& trace, SliceId s, LaneKind lane, bool (*accept)(SliceClass));
// The innermost python_function frame around a host slice (needs with_stack), or kNoSlice.
SliceId pythonFrameOf(const Trace& trace, SliceId hostSlice);

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
