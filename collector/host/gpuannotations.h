#pragma once
// kineto's gpu_user_annotation: every NVTX range, per (device, stream), spans the GPU work
// launched by the calls it contains on its thread, widened by 1 ns on each side so that it
// encloses that work on the stream's row. Derived at build time (no event text) because
// ranges, calls and GPU ops arrive in any order.
//
// Incremental: a live view updates it with the records that arrived since its last snapshot.
// A span is a min/max over (range, call, GPU op) triples, so each triple is counted when the
// last of its three records arrives: a new range reads the calls inside it, a new call the
// ranges around it, a new GPU op the ranges its call is in. Nothing is kept for a process
// that has recorded no range (most CUDA programs).
#include "collector/host/recordindex.h"

#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ks::collector {

class GpuAnnotations {
public:
    // `process`: the one of the last update (none at first), grown at its tail; `index`: the
    // one shared by the process's derivations.
    void update(const RecordedProcess& process, RecordIndex& index);
    // The annotations as GpuAnnotation slices, by (range, device, stream).
    std::vector<RecordedSlice> slices(const RecordedProcess& process) const;

private:
    struct Span {
        TimeNs start, end;
    };

    // The call in `range` launched GPU work with its correlation: the range spans it.
    void inRange(const RecordedProcess& process, const RecordIndex& index, std::uint32_t range,
                 std::int64_t correlation);
    void widen(const RecordedProcess& process, std::uint32_t range, std::uint32_t gpuOp);

    bool m_hasRanges = false;
    std::size_t m_seen = 0; // slices of the process read so far
    std::unordered_map<std::int64_t, RangesByStart> m_rangesOfThread; // by tid
    std::unordered_map<std::int64_t, std::vector<std::uint32_t>> m_rangesOfCorrelation;
    std::map<std::tuple<std::uint32_t, std::int64_t, std::int64_t>, Span> m_spans; // (range, device, stream)
};

} // namespace ks::collector
