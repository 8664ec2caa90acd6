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
#include "collector/host/recordedprocess.h"

#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ks::collector {

class GpuAnnotations {
public:
    // `process`: the one of the last update (none at first), grown at its tail.
    void update(const RecordedProcess& process);
    // The annotations as GpuAnnotation slices, by (range, device, stream).
    std::vector<RecordedSlice> slices(const RecordedProcess& process) const;

private:
    struct Thread {
        std::vector<std::uint32_t> ranges; // by start
        std::vector<TimeNs> latestEnd; // of ranges[0..i]
        std::vector<std::uint32_t> calls; // by start
    };
    struct Span {
        TimeNs start, end;
    };

    void addRange(const RecordedProcess& process, Thread& thread, std::uint32_t range);
    void addCall(const RecordedProcess& process, const Thread& thread, std::uint32_t call);
    // The call in `range` launched GPU work with its correlation: the range spans it.
    void inRange(const RecordedProcess& process, std::uint32_t range, std::int64_t correlation);
    void widen(const RecordedProcess& process, std::uint32_t range, std::uint32_t gpuOp);

    bool m_hasRanges = false;
    std::size_t m_seen = 0; // slices of the process read so far
    std::unordered_map<std::int64_t, Thread> m_threads; // by tid
    std::unordered_map<std::int64_t, std::vector<std::uint32_t>> m_rangesOfCorrelation;
    std::unordered_multimap<std::int64_t, std::uint32_t> m_gpuOpsOfCorrelation;
    std::map<std::tuple<std::uint32_t, std::int64_t, std::int64_t>, Span> m_spans; // (range, device, stream)
};

} // namespace ks::collector
