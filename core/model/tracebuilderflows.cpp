// TraceBuilder's flow binding: each flow event finds its slice, and the halves of one flow
// are paired into arrows (kept apart from tracebuilder.cpp, which builds slices and lanes).
#include "core/model/tracebuilder.h"

#include "core/model/freecolumn.h"

#include <algorithm>
#include <numeric>

namespace ks {

SliceId TraceBuilder::bindFlowEvent(const PendingFlow& e, const std::vector<SliceId>& finalIdOfPending) const
{
    if (e.pendingSlice != kNoIndex)
        return finalIdOfPending[e.pendingSlice];
    const TrackKey& key = m_threadKeys[e.thread];
    auto it = m_trackIndex.find(key);
    if (it == m_trackIndex.end()) // a flow on a host row whose slices are device rows, or vice versa
        it = m_trackIndex.find(TrackKey{key.pid, key.tid, !key.device});
    if (it == m_trackIndex.end())
        return kNoSlice;
    const auto& trace = m_trace;
    const auto& track = trace.m_tracks[it->second];
    const auto& t = trace.m_slices;
    // Exact start first (kineto puts each flow half at its slice's start), innermost wins;
    // then the deepest slice open at the time; then, for a plain f, the next slice.
    SliceId exact = kNoSlice, enclosing = kNoSlice, next = kNoSlice;
    for (auto r = track.rowEnd; r-- > track.rowBegin;) {
        const auto& row = trace.m_rows[r];
        auto first = t.start.begin() + row.begin;
        auto last = t.start.begin() + row.end;
        auto lb = std::lower_bound(first, last, e.time);
        if (lb != last && *lb == e.time && exact == kNoSlice)
            exact = static_cast<SliceId>(lb - t.start.begin());
        if (lb != last && (next == kNoSlice || *lb < t.start[next]))
            next = static_cast<SliceId>(lb - t.start.begin());
        if (enclosing == kNoSlice && lb != first) {
            const auto prev = static_cast<SliceId>(lb - t.start.begin() - 1);
            if (t.end(prev) > e.time)
                enclosing = prev;
        }
    }
    if (exact != kNoSlice)
        return exact;
    if (enclosing != kNoSlice)
        return enclosing;
    if (e.phase == FlowPhase::End && !e.bindEnclosing)
        return next;
    return kNoSlice;
}

void TraceBuilder::bindAndPairFlows(const std::vector<SliceId>& finalIdOfPending)
{
    struct Bound {
        StringId category, name;
        std::uint64_t id;
        TimeNs time;
        FlowPhase phase;
        SliceId slice;
    };
    std::vector<Bound> bound;
    bound.reserve(m_flowEvents.size());
    std::map<StringId, FlowCategoryStats> stats;
    for (const auto& e : m_flowEvents) {
        const SliceId slice = bindFlowEvent(e, finalIdOfPending);
        if (slice == kNoSlice) {
            auto& s = stats[e.category];
            s.category = e.category;
            ++s.unbound;
            if (e.rawLength)
                keepEntry(e.rawOffset, e.rawLength,
                          e.phase == FlowPhase::Start      ? 's'
                              : e.phase == FlowPhase::Step ? 't'
                                                           : 'f');
            continue;
        }
        ++m_trace.m_tracks[m_trace.trackOf(slice)].flowEventCount;
        bound.push_back({e.category, e.name, e.id, e.time, e.phase, slice});
    }
    freeColumn(m_flowEvents);
    std::stable_sort(bound.begin(), bound.end(), [](const Bound& a, const Bound& b) {
        return std::tie(a.category, a.name, a.id, a.time, a.phase)
            < std::tie(b.category, b.name, b.id, b.time, b.phase);
    });
    auto& flows = m_trace.m_flows;
    auto& halves = m_trace.m_unpairedHalves;
    for (std::size_t i = 0; i < bound.size();) {
        std::size_t j = i;
        const Bound* open = nullptr;
        bool openUsed = false;
        auto& s = stats[bound[i].category];
        s.category = bound[i].category;
        auto unpairedStart = [&] {
            ++s.unpairedStarts;
            halves.push_back({open->category, open->name, open->id, open->slice, true});
        };
        for (; j < bound.size() && bound[j].category == bound[i].category && bound[j].name == bound[i].name
             && bound[j].id == bound[i].id;
             ++j) {
            const auto& b = bound[j];
            if (b.phase != FlowPhase::Start) { // End or Step closes an arrow from the open start
                if (open) {
                    flows.push_back({b.category, b.name, open->slice, b.slice, b.id});
                    openUsed = true;
                    ++s.paired;
                } else {
                    ++s.unpairedEnds;
                    halves.push_back({b.category, b.name, b.id, b.slice, false});
                }
            }
            if (b.phase != FlowPhase::End) { // Start or Step opens the next arrow
                if (open && !openUsed)
                    unpairedStart();
                open = &b;
                openUsed = false;
            }
        }
        if (open && !openUsed)
            unpairedStart();
        i = j;
    }
    std::stable_sort(halves.begin(), halves.end(),
                     [](const FlowHalf& a, const FlowHalf& b) { return a.slice < b.slice; });
    for (auto& [category, s] : stats)
        m_trace.m_flowStats.push_back(s);
    std::uint64_t unpaired = 0;
    for (const auto& s : m_trace.m_flowStats)
        unpaired += s.unpairedStarts + s.unpairedEnds;
    if (unpaired)
        m_trace.m_diagnostics.add({Diagnostic::Severity::Info, "unpaired-flow",
                                   "flow events without their other half (kineto writes one for every CUDA API call)",
                                   kNoOffset, kNoEventIndex},
                                  unpaired);

    auto& byFrom = m_trace.m_flowsByFrom;
    auto& byTo = m_trace.m_flowsByTo;
    byFrom.resize(flows.size());
    std::iota(byFrom.begin(), byFrom.end(), 0);
    byTo = byFrom;
    std::stable_sort(byFrom.begin(), byFrom.end(), [&](auto a, auto b) { return flows[a].from < flows[b].from; });
    std::stable_sort(byTo.begin(), byTo.end(), [&](auto a, auto b) { return flows[a].to < flows[b].to; });
}

} // namespace ks
