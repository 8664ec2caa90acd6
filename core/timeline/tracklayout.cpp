#include "core/timeline/tracklayout.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace ks {

std::vector<std::uint32_t> processDisplayOrder(const Trace& trace)
{
    const auto& processes = trace.processes();
    std::vector<std::uint32_t> order(processes.size());
    std::iota(order.begin(), order.end(), 0u);
    // Processes without a sort index (kineto's CUPTI overhead row) go after the others.
    const auto key = [&](std::uint32_t p) {
        const Process& proc = processes[p];
        return std::pair(!proc.hasSortIndex, proc.hasSortIndex ? proc.sortIndex : proc.pid.number);
    };
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
    return order;
}

std::vector<std::uint32_t> processDisplayOrder(const Trace& trace, const LayoutOptions& options)
{
    std::vector<std::uint32_t> order = processDisplayOrder(trace);
    const auto& processes = trace.processes();
    if (options.gpuFirst)
        std::stable_partition(order.begin(), order.end(), [&](std::uint32_t p) { return processes[p].isDevice; });
    if (!options.groupOrder.empty()) {
        const auto rank = [&](std::uint32_t p) {
            const auto& g = options.groupOrder;
            return std::size_t(std::find(g.begin(), g.end(), p) - g.begin());
        };
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return rank(a) < rank(b); });
    }
    return order;
}

bool TrackLayout::isPinned(std::uint32_t track) const
{
    const auto& pinned = m_options.pinnedTracks;
    return std::find(pinned.begin(), pinned.end(), track) != pinned.end();
}

bool TrackLayout::isMetricCollapsed(std::uint32_t process, std::uint32_t metric) const
{
    const auto& collapsed = m_options.collapsedMetrics;
    return process < collapsed.size() && metric < 8 && (collapsed[process] >> metric & 1u) != 0;
}

bool TrackLayout::isCounterCollapsed(std::uint32_t counter) const
{
    const auto& collapsed = m_options.collapsedCounters;
    return counter < collapsed.size() && collapsed[counter];
}

void TrackLayout::build(const Trace& trace, const std::vector<bool>& collapsed, bool orphanCountersCollapsed,
                        const LayoutMetrics& metrics)
{
    m_metrics = metrics;
    m_items.clear();
    m_groups.clear();
    m_rowTop.assign(trace.rows().size(), -1);
    m_instantTop.assign(trace.tracks().size(), -1);
    m_trackRows.clear();
    for (const Track& track : trace.tracks())
        m_trackRows.emplace_back(track.rowBegin, track.rowEnd);

    std::vector<std::vector<std::uint32_t>> countersOf(trace.processes().size());
    std::vector<std::uint32_t> orphanCounters;
    for (std::uint32_t c = 0; c < trace.counters().size(); ++c) {
        const std::uint32_t p = trace.counters()[c].process;
        (p < countersOf.size() ? countersOf[p] : orphanCounters).push_back(c);
    }

    int y = 0;
    const auto addGroup = [&](std::uint32_t process, const std::vector<std::uint32_t>& tracks,
                              const std::vector<std::uint32_t>& counters, bool isCollapsed) {
        m_groups.push_back(process);
        m_items.push_back({LayoutItem::Kind::Process, process, process, y, metrics.processHeader, isCollapsed});
        y += metrics.processHeader;
        if (isCollapsed)
            return;
        const int metricCount = process < m_options.metricTracks.size() ? m_options.metricTracks[process] : 0;
        for (int m = 0; m < metricCount; ++m) {
            const bool thin = isMetricCollapsed(process, std::uint32_t(m));
            const int height = thin ? metrics.collapsedPlotHeight : metrics.metricHeight;
            m_items.push_back({LayoutItem::Kind::Metric, std::uint32_t(m), process, y, height, thin});
            y += height;
        }
        for (std::uint32_t t : tracks) {
            const Track& track = trace.tracks()[t];
            const int rowCount = static_cast<int>(track.rowEnd - track.rowBegin);
            if ((rowCount == 0 && track.instantCount() == 0) || (process != kPinnedGroup && isPinned(t)))
                continue;
            const bool foldPython = t < m_options.foldedPythonLanes.size() && m_options.foldedPythonLanes[t];
            const int top = y;
            if (track.instantCount() > 0) {
                m_instantTop[t] = y;
                y += metrics.instantStrip;
            }
            for (std::uint32_t r = track.rowBegin; r < track.rowEnd; ++r) {
                const Row& row = trace.rows()[r];
                if (foldPython && row.depth > 0 && track.lanes[row.lane].kind == LaneKind::Python)
                    continue; // hidden: rowTop stays -1
                m_rowTop[r] = y;
                y += metrics.rowHeight;
            }
            y += metrics.trackGap;
            m_items.push_back({LayoutItem::Kind::Track, t, process, top, y - top});
        }
        for (std::uint32_t c : counters) {
            const bool thin = isCounterCollapsed(c);
            const int height = thin ? metrics.collapsedPlotHeight : metrics.counterHeight;
            m_items.push_back({LayoutItem::Kind::Counter, c, process, y, height, thin});
            y += height;
        }
    };

    std::vector<std::uint32_t> pinned;
    for (std::uint32_t t : m_options.pinnedTracks) {
        if (t < trace.tracks().size())
            pinned.push_back(t);
    }
    if (!pinned.empty())
        addGroup(kPinnedGroup, pinned, {}, false);
    for (std::uint32_t p : processDisplayOrder(trace, m_options)) {
        const Process& proc = trace.processes()[p];
        const bool hasTracks = std::any_of(proc.tracks.begin(), proc.tracks.end(), [&](auto t) {
            const Track& track = trace.tracks()[t];
            return track.rowEnd > track.rowBegin || track.instantCount() > 0;
        });
        if (!hasTracks && countersOf[p].empty())
            continue; // kineto declares 16 GPUs whatever the machine has
        addGroup(p, proc.tracks, countersOf[p], p < collapsed.size() && collapsed[p]);
    }
    if (!orphanCounters.empty())
        addGroup(kNoIndex, {}, orphanCounters, orphanCountersCollapsed);
    m_totalHeight = y;
}

const LayoutItem* TrackLayout::itemAt(int y) const
{
    auto it = std::upper_bound(m_items.begin(), m_items.end(), y,
                               [](int value, const LayoutItem& item) { return value < item.y; });
    if (it == m_items.begin())
        return nullptr;
    --it;
    return y < it->y + it->height ? &*it : nullptr;
}

std::uint32_t TrackLayout::rowAt(int y) const
{
    const LayoutItem* item = itemAt(y);
    if (!item || item->kind != LayoutItem::Kind::Track)
        return kNoIndex;
    // Rows of a track lie below its optional instant strip in order; folded ones have no top.
    const auto [rowBegin, rowEnd] = m_trackRows[item->index];
    for (std::uint32_t r = rowBegin; r < rowEnd; ++r) {
        if (m_rowTop[r] >= 0 && y >= m_rowTop[r] && y < m_rowTop[r] + m_metrics.rowHeight)
            return r;
    }
    return kNoIndex;
}

std::pair<std::size_t, std::size_t> TrackLayout::itemsIn(int yTop, int yBottom) const
{
    const auto first = std::partition_point(m_items.begin(), m_items.end(),
                                            [&](const LayoutItem& item) { return item.y + item.height <= yTop; });
    const auto last =
        std::partition_point(first, m_items.end(), [&](const LayoutItem& item) { return item.y < yBottom; });
    return {static_cast<std::size_t>(first - m_items.begin()), static_cast<std::size_t>(last - m_items.begin())};
}

int TrackLayout::instantStripTop(std::uint32_t track) const
{
    return track < m_instantTop.size() ? m_instantTop[track] : -1;
}

} // namespace ks
