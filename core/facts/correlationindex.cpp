#include "core/facts/correlationindex.h"

#include "core/model/freecolumn.h"

#include <algorithm>

namespace ks::facts {

void CorrelationIndex::Links::finish(const Trace& trace)
{
    const auto& start = trace.slices().start;
    std::sort(m_pairs.begin(), m_pairs.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first)
            return a.first < b.first;
        return start[a.second] != start[b.second] ? start[a.second] < start[b.second] : a.second < b.second;
    });
    m_ids.reserve(m_pairs.size());
    m_slices.reserve(m_pairs.size());
    for (const auto& [id, s] : m_pairs) {
        m_ids.push_back(id);
        m_slices.push_back(s);
    }
    freeColumn(m_pairs);
}

std::span<const SliceId> CorrelationIndex::Links::find(std::int64_t id) const
{
    if (id == kNoId)
        return {};
    const auto [lo, hi] = std::equal_range(m_ids.begin(), m_ids.end(), id);
    const auto first = static_cast<std::size_t>(lo - m_ids.begin());
    return {m_slices.data() + first, static_cast<std::size_t>(hi - lo)};
}

CorrelationIndex::CorrelationIndex(const Trace& trace, const std::vector<facts::PluginKind>& kinds)
    : m_trace(&trace)
{
    const auto& slices = trace.slices();
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (facts::isDeviceKind(kinds[s])) {
            if (slices.correlation[s] != kNoId)
                m_gpuOpByCorrelation.add(slices.correlation[s], s);
            continue;
        }
        const SliceClass c = trace.classOf(s);
        if (isLaunchClass(c)) {
            if (slices.correlation[s] != kNoId)
                m_launchByCorrelation.add(slices.correlation[s], s);
            if (slices.externalId[s] != kNoId)
                m_launchByExternalId.add(slices.externalId[s], s);
        } else if (c == SliceClass::CpuOp && slices.externalId[s] != kNoId) {
            m_opByExternalId.add(slices.externalId[s], s);
        }
    }
    m_launchByCorrelation.finish(trace);
    m_gpuOpByCorrelation.finish(trace);
    m_launchByExternalId.finish(trace);
    m_opByExternalId.finish(trace);
}

SliceId CorrelationIndex::launchOf(SliceId gpuOp) const
{
    const auto launches = m_launchByCorrelation.find(m_trace->slices().correlation[gpuOp]);
    return launches.empty() ? kNoSlice : launches.front();
}

std::span<const SliceId> CorrelationIndex::gpuOpsOf(SliceId launch) const
{
    return m_gpuOpByCorrelation.find(m_trace->slices().correlation[launch]);
}

std::span<const SliceId> CorrelationIndex::launchesOf(SliceId cpuOp) const
{
    return m_launchByExternalId.find(m_trace->slices().externalId[cpuOp]);
}

SliceId CorrelationIndex::opOf(SliceId launch) const
{
    const auto& slices = m_trace->slices();
    for (const SliceId op : m_opByExternalId.find(slices.externalId[launch])) {
        if (m_trace->trackOf(op) == m_trace->trackOf(launch))
            return op;
    }
    return enclosingSlice(*m_trace, launch, LaneKind::Main, [](SliceClass c) { return c == SliceClass::CpuOp; });
}

SliceId enclosingSlice(const Trace& trace, SliceId s, LaneKind laneKind, bool (*accept)(SliceClass))
{
    const auto& slices = trace.slices();
    const Row& own = trace.rowOf(s);
    const Track& track = trace.tracks()[own.track];
    const TimeNs start = slices.start[s], end = slices.end(s);
    for (std::size_t laneIndex = 0; laneIndex < track.lanes.size(); ++laneIndex) {
        const Lane& lane = track.lanes[laneIndex];
        if (lane.kind != laneKind)
            continue;
        // In its own lane only the rows above the slice can enclose it.
        int depth = laneIndex == own.lane ? int(own.depth) - 1 : int(lane.depthCount) - 1;
        for (; depth >= 0; --depth) {
            const SliceId candidate = trace.sliceAt(track.rowBegin + lane.firstRow + std::uint32_t(depth), start);
            if (candidate != kNoSlice && candidate != s && slices.end(candidate) >= end
                && accept(trace.classOf(candidate)))
                return candidate;
        }
    }
    return kNoSlice;
}

SliceId pythonFrameOf(const Trace& trace, SliceId hostSlice)
{
    return enclosingSlice(trace, hostSlice, LaneKind::Python,
                          [](SliceClass c) { return c == SliceClass::PythonFunction; });
}

} // namespace ks::facts
