// TraceBuilder's layout: each track's slices sorted by start and put in lanes and rows, and
// each track's instants in time order (kept apart from tracebuilder.cpp, which collects the
// events and reorders the columns).
#include "core/model/tracebuilder.h"

#include "core/model/freecolumn.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace ks {
namespace {

// The indices [0, n) grouped by groupOf(i) < groups, each group in index order (a counting
// sort); group g is [firstOf[g], firstOf[g + 1]).
template <class GroupOf>
std::vector<std::uint32_t> groupedBy(std::size_t n, std::size_t groups, GroupOf groupOf,
                                     std::vector<std::uint32_t>& firstOf)
{
    firstOf.assign(groups + 1, 0);
    for (std::uint32_t i = 0; i < n; ++i)
        ++firstOf[groupOf(i) + 1];
    std::partial_sum(firstOf.begin(), firstOf.end(), firstOf.begin());
    std::vector<std::uint32_t> grouped(n);
    auto cursor = firstOf;
    for (std::uint32_t i = 0; i < n; ++i)
        grouped[cursor[groupOf(i)]++] = i;
    return grouped;
}

// Sorts [first, last) by `less` (a strict total order), in O(n log r) for r ascending runs: a
// profiler writes each thread's events in a few sorted runs (a tiled or concatenated trace, one
// per part), which a comparison sort would treat as unordered. Many short runs mean unordered
// input: then it is an ordinary sort.
template <class It, class Less>
void sortByMergingRuns(It first, It last, Less less)
{
    const auto n = static_cast<std::size_t>(last - first);
    if (n < 2)
        return;
    std::vector<It> runEnds;
    for (It run = first; run != last && runEnds.size() <= n / 32;) {
        run = std::is_sorted_until(run, last, less);
        runEnds.push_back(run);
    }
    if (runEnds.back() != last) {
        std::sort(first, last, less);
        return;
    }
    // Adjacent runs merged pairwise, round after round: each round reads the range once, in order.
    while (runEnds.size() > 1) {
        std::size_t kept = 0;
        It begin = first;
        for (std::size_t i = 0; i < runEnds.size(); i += 2) {
            if (i + 1 < runEnds.size())
                std::inplace_merge(begin, runEnds[i], runEnds[i + 1], less);
            const It end = runEnds[std::min(i + 1, runEnds.size() - 1)];
            runEnds[kept++] = end;
            begin = end;
        }
        runEnds.resize(kept);
    }
}

} // namespace

std::vector<std::uint32_t> TraceBuilder::layOutTracks()
{
    const auto& t = events().m_trace.m_slices;
    const std::size_t n = t.start.size();
    const auto tracks = static_cast<std::uint32_t>(m_trace.m_tracks.size());
    std::vector<std::uint32_t> trackFirst;
    auto byStart = groupedBy(
        n, tracks, [&](std::uint32_t i) { return m_sliceTrack[i]; }, trackFirst);
    m_laneOfPending.assign(n, 0);
    m_depthOfPending.assign(n, 0);
    const auto startOrder = [&](std::uint32_t a, std::uint32_t b) {
        if (t.start[a] != t.start[b])
            return t.start[a] < t.start[b];
        if (t.duration[a] != t.duration[b])
            return t.duration[a] > t.duration[b]; // the enclosing slice first
        return a < b;
    };
    LaneWarnings warnings;
    for (std::uint32_t ti = 0; ti < tracks; ++ti) {
        const auto first = byStart.begin() + trackFirst[ti];
        const auto last = byStart.begin() + trackFirst[ti + 1];
        sortByMergingRuns(first, last, startOrder);
        layOutTrack(ti, std::span<const std::uint32_t>(first, last), warnings);
    }
    numberRows();
    if (warnings.crowded)
        m_trace.m_diagnostics.add({Diagnostic::Severity::Warning, "too-many-lanes",
                                   "a track needed more than 256 lanes for its overlapping slices; some share a row",
                                   kNoOffset, kNoEventIndex},
                                  warnings.crowded);
    if (warnings.overlaps)
        m_trace.m_diagnostics.add({Diagnostic::Severity::Warning, "overlap-moved-to-lane",
                                   "slices overlapping a sibling without nesting were drawn in an extra lane",
                                   kNoOffset, kNoEventIndex},
                                  warnings.overlaps);
    return byStart;
}

void TraceBuilder::layOutTrack(std::uint32_t track, std::span<const std::uint32_t> byStart, LaneWarnings& warnings)
{
    const auto& t = events().m_trace.m_slices;
    struct LaneState {
        LaneKind kind;
        bool python;
        std::vector<TimeNs> openEnds; // stack of enclosing slices' ends
        std::uint16_t maxDepth = 0;
    };
    // Bounds that keep pathological input (65k-deep nesting, staggered overlaps that
    // would need a lane per slice) linear and inside the 16-bit row fields.
    constexpr std::size_t kMaxDepth = 1024;
    constexpr std::size_t kMaxLanes = 256; // a lane index fits m_laneOfPending's byte
    std::vector<LaneState> lanes;
    for (const auto s : byStart) {
        const bool python = m_sliceIsPython[s];
        const TimeNs start = t.start[s];
        const TimeNs end = start + t.duration[s];
        std::uint32_t chosen = kNoIndex;
        for (std::uint32_t li = 0; li < lanes.size(); ++li) {
            auto& lane = lanes[li];
            if (lane.python != python)
                continue;
            while (!lane.openEnds.empty() && lane.openEnds.back() <= start)
                lane.openEnds.pop_back();
            if (lane.openEnds.size() < kMaxDepth && (lane.openEnds.empty() || end <= lane.openEnds.back())) {
                chosen = li;
                break;
            }
        }
        if (chosen == kNoIndex && lanes.size() >= kMaxLanes) {
            // Out of lanes: restart the last one; its rows may then overlap.
            chosen = static_cast<std::uint32_t>(lanes.size() - 1);
            lanes.back().openEnds.clear();
            ++warnings.crowded;
        }
        if (chosen == kNoIndex) {
            const bool first =
                std::none_of(lanes.begin(), lanes.end(), [&](const LaneState& l) { return l.python == python; });
            if (!first)
                ++warnings.overlaps;
            lanes.push_back({first ? (python ? LaneKind::Python : LaneKind::Main) : LaneKind::Overflow, python, {}, 0});
            chosen = static_cast<std::uint32_t>(lanes.size() - 1);
        }
        auto& lane = lanes[chosen];
        const auto depth = static_cast<std::uint16_t>(std::min<std::size_t>(lane.openEnds.size(), UINT16_MAX));
        lane.maxDepth = std::max(lane.maxDepth, depth);
        lane.openEnds.push_back(end);
        m_laneOfPending[s] = static_cast<std::uint8_t>(chosen);
        m_depthOfPending[s] = depth;
    }
    // Display order: ops first (what users look for), their overflow lanes, then the
    // Python frames, whatever came first in time.
    std::vector<std::uint32_t> laneOrder(lanes.size());
    std::iota(laneOrder.begin(), laneOrder.end(), 0);
    std::stable_sort(laneOrder.begin(), laneOrder.end(), [&](std::uint32_t a, std::uint32_t b) {
        return std::pair(lanes[a].python, lanes[a].kind == LaneKind::Overflow)
            < std::pair(lanes[b].python, lanes[b].kind == LaneKind::Overflow);
    });
    std::vector<std::uint32_t> newLane(lanes.size());
    for (std::uint32_t k = 0; k < laneOrder.size(); ++k)
        newLane[laneOrder[k]] = k;
    for (const auto s : byStart)
        m_laneOfPending[s] = static_cast<std::uint8_t>(newLane[m_laneOfPending[s]]);
    auto& trackLanes = m_trace.m_tracks[track].lanes;
    std::uint32_t firstRow = 0;
    for (const auto laneIndex : laneOrder) {
        const auto depthCount = static_cast<std::uint16_t>(lanes[laneIndex].maxDepth + 1);
        trackLanes.push_back({lanes[laneIndex].kind, depthCount, firstRow});
        firstRow += depthCount;
    }
}

void TraceBuilder::numberRows()
{
    std::uint32_t rowCount = 0;
    for (std::uint32_t ti = 0; ti < m_trace.m_tracks.size(); ++ti) {
        auto& track = m_trace.m_tracks[ti];
        track.rowBegin = rowCount;
        for (std::size_t li = 0; li < track.lanes.size(); ++li) { // at most 256 lanes
            for (std::uint16_t d = 0; d < track.lanes[li].depthCount; ++d)
                m_trace.m_rows.push_back({ti, static_cast<std::uint16_t>(li), d, 0, 0});
            rowCount += track.lanes[li].depthCount;
        }
        track.rowEnd = rowCount;
    }
}

void TraceBuilder::finishInstants()
{
    auto& events = m_instantEvents;
    std::vector<std::uint32_t> trackOfThread(m_threadKeys.size(), kNoIndex);
    for (std::uint32_t k = 0; k < m_threadKeys.size(); ++k) {
        if (auto it = m_trackIndex.find(m_threadKeys[k]); it != m_trackIndex.end())
            trackOfThread[k] = it->second;
    }
    std::map<std::pair<JsonId, bool>, std::uint32_t> processOf;
    for (std::uint32_t p = 0; p < m_trace.m_processes.size(); ++p)
        processOf.emplace(std::pair{m_trace.m_processes[p].pid, m_trace.m_processes[p].isDevice}, p);
    std::vector<std::uint32_t> trackOf(events.size(), kNoIndex);
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (events[i].scope == InstantScope::Thread)
            trackOf[i] = trackOfThread[events[i].thread];
    }
    // Grouped by track (those of none last), then each track's by time, file order on ties.
    const std::size_t tracks = m_trace.m_tracks.size();
    std::vector<std::uint32_t> trackFirst;
    auto order = groupedBy(
        events.size(), tracks + 1, [&](std::uint32_t i) { return trackOf[i] == kNoIndex ? tracks : trackOf[i]; },
        trackFirst);
    const auto timeOrder = [&](std::uint32_t a, std::uint32_t b) {
        return std::tie(events[a].time, a) < std::tie(events[b].time, b);
    };
    for (std::size_t g = 0; g <= tracks; ++g)
        sortByMergingRuns(order.begin() + trackFirst[g], order.begin() + trackFirst[g + 1], timeOrder);
    auto& out = m_trace.m_instants;
    const auto reserve = [&](auto&... columns) { (columns.reserve(events.size()), ...); };
    reserve(out.time, out.name, out.category, out.track, out.process, out.scope, out.rawOffset, out.rawLength);
    for (auto i : order) {
        const auto& e = events[i];
        std::uint32_t process = kNoIndex;
        if (e.scope == InstantScope::Process) {
            const auto& key = m_threadKeys[e.thread];
            if (auto it = processOf.find({key.pid, key.device}); it != processOf.end())
                process = it->second;
        }
        if (trackOf[i] != kNoIndex) {
            auto& track = m_trace.m_tracks[trackOf[i]];
            if (track.instantEnd == 0)
                track.instantBegin = static_cast<std::uint32_t>(out.size());
            track.instantEnd = static_cast<std::uint32_t>(out.size() + 1);
        }
        out.time.push_back(e.time);
        out.name.push_back(e.name);
        out.category.push_back(e.category);
        out.track.push_back(trackOf[i]);
        out.process.push_back(process);
        out.scope.push_back(trackOf[i] == kNoIndex && e.scope == InstantScope::Thread ? InstantScope::Global : e.scope);
        out.rawOffset.push_back(e.rawOffset);
        out.rawLength.push_back(e.rawLength);
    }
    freeColumn(events);
}

} // namespace ks
