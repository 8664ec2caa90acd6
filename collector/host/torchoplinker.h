#pragma once
// Links the PyTorch operators of a recorded process to what they contain, as kineto does: each
// runtime or driver call takes the External id of the innermost op range on its thread that
// contains its start (the one that started last; of those that started together, the
// shortest), and the GPU work it launched takes it through the correlation id. Forward ops
// are paired with the backward op of their autograd node by sequence number (kineto's
// fwdbwd arrows).
//
// Incremental: a live view updates it with the records that arrived since its last snapshot.
// An op range is recorded when it ends, after the calls it contains, so an update re-links
// the calls of each thread from the earliest start among its new records on: the cost grows
// with what arrived and the time it spans, not with the whole recording.
#include "collector/host/recordindex.h"

#include <cstdint>
#include <limits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ks::collector {

class TorchOpLinker {
public:
    // `process`: the one of the last update (none at first), grown at its tail; `index`: the
    // one shared by the process's derivations.
    void update(const RecordedProcess& process, RecordIndex& index);

    // The External id of each slice of the process, kNoId where none; empty while it has
    // recorded no op range.
    const std::vector<std::int64_t>& externalIdOfSlice() const { return m_externalIds; }
    // Slices of earlier updates whose External id the last update changed.
    const std::vector<std::uint32_t>& changed() const { return m_changed; }
    // (forward op slice, backward op slice), ascending.
    const std::vector<std::pair<std::uint32_t, std::uint32_t>>& forwardBackward() const { return m_fwdbwd; }

private:
    struct Thread {
        RangesByStart ops;
        std::vector<std::uint32_t> newOps; // of this update
        TimeNs newFrom = kNoNewRecord; // the earliest start of this update's ops and calls
    };
    static constexpr TimeNs kNoNewRecord = std::numeric_limits<TimeNs>::max();

    void addSlice(const RecordedProcess& process, std::uint32_t slice, std::vector<std::int64_t>& sequences);
    void relink(const RecordedProcess& process, const RecordIndex& index, std::int64_t tid, Thread& thread);
    void setExternalId(const RecordedProcess& process, const RecordIndex& index, std::uint32_t slice,
                       std::int64_t externalId);
    void pairForwardBackward(const RecordedProcess& process, std::vector<std::int64_t> sequences);
    // The (forward, backward) pair of `sequence` now, if it has one.
    bool pairOf(const RecordedProcess& process, std::int64_t sequence,
                std::pair<std::uint32_t, std::uint32_t>& pair) const;

    std::size_t m_linked = 0; // slices of the process linked so far
    std::size_t m_seen = 0; // slices of the process at the last update (none linked before an op range)
    std::vector<std::int64_t> m_externalIds;
    std::vector<std::uint32_t> m_changed;
    std::unordered_map<std::int64_t, Thread> m_threads; // by tid
    std::unordered_map<std::int64_t, std::int64_t> m_externalOfCorrelation;
    // Of the forward ops with a sequence number, the one that started last (it created the
    // autograd node); of the backward ops, the first to end (the node itself, inside the
    // engine's evaluate_function wrapper).
    std::unordered_map<std::int64_t, std::uint32_t> m_forwardOf, m_backwardOf;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_fwdbwd;
};

} // namespace ks::collector
