// TraceBuilder's flow binding: each flow event finds its slice, and the halves of one flow
// are paired into arrows (kept apart from tracebuilder.cpp, which collects the events and
// reorders the columns).
#include "core/model/tracebuilder.h"

#include "core/model/freecolumn.h"

#include <algorithm>
#include <numeric>

namespace ks {
namespace {

// Flow indices ordered by one end's slice, ties in flow order: a counting sort, linear in
// flows and slices (a comparison sort of a million arrows costs more than binding them).
std::vector<std::uint32_t> flowsStablyBy(const std::vector<Flow>& flows, SliceId Flow::*end, std::size_t sliceCount)
{
    std::vector<std::uint32_t> firstOf(sliceCount + 1, 0);
    for (const Flow& f : flows)
        ++firstOf[f.*end + 1];
    std::partial_sum(firstOf.begin(), firstOf.end(), firstOf.begin());
    std::vector<std::uint32_t> ordered(flows.size());
    for (std::uint32_t i = 0; i < flows.size(); ++i)
        ordered[firstOf[flows[i].*end]++] = i;
    return ordered;
}

// The halves [first, size) in pairing order: by (category, name, id), then (time, phase), then
// index. A radix sort on (name pair, id), stable so the index order survives, then a sort of
// each flow's few halves by time: linear, where one comparison sort of every half cost a third
// of a live snapshot's build at a million halves.
template <class Half>
std::vector<std::uint32_t> pairingOrder(const std::vector<Half>& halves, std::uint32_t first)
{
    struct Key {
        std::uint64_t id;
        std::uint32_t names; // dense rank of (category, name)
        std::uint32_t half;
    };
    const auto count = static_cast<std::uint32_t>(halves.size()) - first;
    // The distinct name pairs, ranked in (category, name) order; halves of one pair come in runs.
    std::map<std::pair<StringId, StringId>, std::uint32_t> nameRank;
    auto names = nameRank.end();
    for (std::uint32_t i = first; i < halves.size(); ++i) {
        const auto& h = halves[i];
        if (names == nameRank.end() || names->first != std::pair(h.category, h.name))
            names = nameRank.try_emplace({h.category, h.name}, 0).first;
    }
    std::uint32_t rank = 0;
    for (auto& [pair, r] : nameRank)
        r = rank++;
    std::vector<Key> keys(count);
    std::uint64_t idBits = 0; // the bits in which some id differs from the first
    names = nameRank.end();
    for (std::uint32_t i = 0; i < count; ++i) {
        const auto& h = halves[first + i];
        if (names == nameRank.end() || names->first != std::pair(h.category, h.name))
            names = nameRank.find({h.category, h.name});
        keys[i] = {h.id, names->second, first + i};
        idBits |= h.id ^ keys.front().id;
    }
    // Least significant byte first: the id's, then the name rank's. Bytes, not wider digits:
    // 256 places to write to stay in cache. A byte that is the same in every key (the high
    // bytes of small ids, the process in a collector's id) is skipped.
    std::vector<Key> scratch(keys.size());
    std::vector<std::uint32_t> bucket(256);
    const auto sortByByte = [&](auto byteOf) {
        std::fill(bucket.begin(), bucket.end(), 0);
        for (const Key& k : keys)
            ++bucket[byteOf(k)];
        std::exclusive_scan(bucket.begin(), bucket.end(), bucket.begin(), 0U);
        for (const Key& k : keys)
            scratch[bucket[byteOf(k)]++] = k;
        keys.swap(scratch);
    };
    for (int shift = 0; shift < 64; shift += 8) {
        if ((idBits >> shift) & 0xffU)
            sortByByte([shift](const Key& k) { return static_cast<std::uint32_t>(k.id >> shift) & 0xffU; });
    }
    const std::uint32_t rankBits = rank > 1 ? rank - 1 : 0;
    for (int shift = 0; shift < 32 && (rankBits >> shift) != 0; shift += 8)
        sortByByte([shift](const Key& k) { return (k.names >> shift) & 0xffU; });
    freeColumn(scratch);
    std::vector<std::uint32_t> order(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
        order[i] = keys[i].half;
    const auto byTime = [&](std::uint32_t x, std::uint32_t y) {
        return std::tie(halves[x].time, halves[x].phase, x) < std::tie(halves[y].time, halves[y].phase, y);
    };
    for (std::size_t i = 0; i < keys.size();) {
        std::size_t j = i + 1;
        while (j < keys.size() && keys[j].id == keys[i].id && keys[j].names == keys[i].names)
            ++j;
        if (j - i == 2) { // most flows: a start and an end
            if (byTime(order[i + 1], order[i]))
                std::swap(order[i], order[i + 1]);
        } else if (j - i > 2) {
            std::sort(order.begin() + std::ptrdiff_t(i), order.begin() + std::ptrdiff_t(j), byTime);
        }
        i = j;
    }
    return order;
}

} // namespace

// All flow events in pairing order. A snapshot's builder sorts only those added since the last
// snapshot and merges them into its order, which it keeps for the next.
std::vector<std::uint32_t> TraceBuilder::flowPairingOrder() const
{
    const auto& events = this->events().m_flowEvents;
    if (!m_snapshotOf)
        return pairingOrder(events, 0);
    const auto& known = m_snapshotOf->m_flowOrder; // events [0, known.size()), in order
    const std::vector<std::uint32_t> added = pairingOrder(events, static_cast<std::uint32_t>(known.size()));
    std::vector<std::uint32_t> order(events.size());
    std::merge(known.begin(), known.end(), added.begin(), added.end(), order.begin(),
               [&](std::uint32_t x, std::uint32_t y) {
                   const auto& a = events[x];
                   const auto& b = events[y];
                   return std::tie(a.category, a.name, a.id, a.time, a.phase, x)
                       < std::tie(b.category, b.name, b.id, b.time, b.phase, y);
               });
    return order;
}

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

void TraceBuilder::bindAndPairFlows(const std::vector<SliceId>& finalIdOfPending, std::vector<std::uint32_t> order)
{
    const auto& events = this->events().m_flowEvents;
    std::vector<SliceId> boundTo(events.size());
    std::map<StringId, FlowCategoryStats> stats;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        boundTo[i] = bindFlowEvent(e, finalIdOfPending);
        if (boundTo[i] == kNoSlice) {
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
        ++m_trace.m_tracks[m_trace.trackOf(boundTo[i])].flowEventCount;
    }
    if (m_snapshotOf)
        m_snapshotOf->m_flowOrder = order;
    std::erase_if(order, [&](std::uint32_t e) { return boundTo[e] == kNoSlice; });
    // The text of each bound s/t/f event, in event order, so that the writer copies it.
    auto& texts = m_trace.m_flowTexts;
    std::vector<std::uint32_t> textOf(events.size(), kNoIndex);
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (boundTo[i] != kNoSlice && events[i].rawLength) {
            textOf[i] = static_cast<std::uint32_t>(texts.size());
            texts.push_back({events[i].rawOffset, events[i].rawLength});
        }
    }
    auto& flows = m_trace.m_flows;
    flows.reserve(order.size() / 2); // most flows: a start and an end
    auto& halves = m_trace.m_unpairedHalves;
    const auto sameFlow = [&](std::uint32_t x, std::uint32_t y) {
        return events[x].category == events[y].category && events[x].name == events[y].name
            && events[x].id == events[y].id;
    };
    constexpr std::uint32_t kNone = kNoIndex;
    FlowCategoryStats* lastStats = nullptr;
    for (std::size_t i = 0; i < order.size();) {
        const std::uint32_t first = order[i];
        std::size_t j = i;
        std::uint32_t open = kNone; // the start (or step) that the next end closes
        bool openUsed = false;
        if (!lastStats || lastStats->category != events[first].category) { // categories come in runs
            lastStats = &stats[events[first].category];
            lastStats->category = events[first].category;
        }
        auto& s = *lastStats;
        auto unpairedStart = [&] {
            ++s.unpairedStarts;
            halves.push_back(
                {events[open].category, events[open].name, events[open].id, boundTo[open], textOf[open], true});
        };
        for (; j < order.size() && sameFlow(order[j], first); ++j) {
            const std::uint32_t h = order[j];
            const auto& b = events[h];
            if (b.phase != FlowPhase::Start) { // End or Step closes an arrow from the open start
                if (open != kNone) {
                    flows.push_back({b.category, b.name, boundTo[open], boundTo[h], b.id, textOf[open], textOf[h]});
                    openUsed = true;
                    ++s.paired;
                } else {
                    ++s.unpairedEnds;
                    halves.push_back({b.category, b.name, b.id, boundTo[h], textOf[h], false});
                }
            }
            if (b.phase != FlowPhase::End) { // Start or Step opens the next arrow
                if (open != kNone && !openUsed)
                    unpairedStart();
                open = h;
                openUsed = false;
            }
        }
        if (open != kNone && !openUsed)
            unpairedStart();
        i = j;
    }
    freeColumn(m_flowEvents);
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

    indexFlows();
}

void TraceBuilder::indexFlows()
{
    m_trace.m_flowsByFrom = flowsStablyBy(m_trace.m_flows, &Flow::from, m_trace.m_slices.size());
    m_trace.m_flowsByTo = flowsStablyBy(m_trace.m_flows, &Flow::to, m_trace.m_slices.size());
}

} // namespace ks
