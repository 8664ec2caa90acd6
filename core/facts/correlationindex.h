#pragma once
// Which host call launched which GPU work, and under which CPU op (part of TraceFacts).
#include "core/facts/pluginkind.h"
#include "core/model/trace.h"

#include <cstdint>
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

} // namespace ks::facts
