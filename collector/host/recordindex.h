#pragma once
// What the derivations of a recording (operator links, GPU annotations) look up in one recorded
// process, kept up as its records arrive. They share one: an update sorts each new call into its
// thread's list and maps each new GPU op once.
#include "collector/host/recordedprocess.h"

#include <span>
#include <unordered_map>
#include <vector>

namespace ks::collector {

// Each thread's runtime and driver calls by (start, slice), and the GPU ops of each correlation
// id. Nothing is indexed before a derivation asks: most CUDA programs need neither.
class RecordIndex {
public:
    // Indexes the slices `process` gained since the last update (every one at the first); an
    // update with none new does nothing, so each derivation updates it before reading.
    void update(const RecordedProcess& process);

    std::span<const std::uint32_t> callsOf(std::int64_t tid) const;
    template <class Visit>
    void forEachGpuOp(std::int64_t correlation, Visit visit) const
    {
        const auto [first, last] = m_gpuOpsOfCorrelation.equal_range(correlation);
        for (auto it = first; it != last; ++it)
            visit(it->second);
    }

private:
    std::size_t m_indexed = 0; // slices of the process read so far
    std::unordered_map<std::int64_t, std::vector<std::uint32_t>> m_callsOfThread;
    std::unordered_multimap<std::int64_t, std::uint32_t> m_gpuOpsOfCorrelation;
};

// One thread's ranges (operators, NVTX ranges) by (start, longer first, slice), with the latest
// end of each prefix, so that the ranges running at a time are found by walking back from it
// only as far as one of them may still run.
class RangesByStart {
public:
    // Adds `fresh`, which it sorts in the same order.
    void insert(const RecordedProcess& process, std::vector<std::uint32_t>& fresh);

    const std::vector<std::uint32_t>& ranges() const { return m_ranges; }
    // Where the ranges that start before `at` (at or before, with `orAt`) end.
    std::size_t startedBefore(const RecordedProcess& process, TimeNs at, bool orAt) const;
    // Visits the ranges among the first `count` that still run at `at` (end >= at), the latest
    // started first.
    template <class Visit>
    void forEachRunningAt(const RecordedProcess& process, std::size_t count, TimeNs at, Visit visit) const
    {
        for (std::size_t i = count; i > 0 && m_latestEnd[i - 1] >= at; --i) {
            if (sliceEnd(process.slices[m_ranges[i - 1]]) >= at)
                visit(m_ranges[i - 1]);
        }
    }

private:
    std::vector<std::uint32_t> m_ranges;
    std::vector<TimeNs> m_latestEnd; // of m_ranges[0..i]
};

} // namespace ks::collector
