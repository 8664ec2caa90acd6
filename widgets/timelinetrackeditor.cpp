#include "widgets/timelinetrackeditor.h"

#include "widgets/gpumetrictrack.h"
#include "widgets/timelinelayoutsettings.h"

#include <algorithm>

namespace ks {

TimelineTrackEditor::TimelineTrackEditor(TimelineLanes& lanes, std::uint32_t trace)
    : m_lanes(lanes)
    , m_trace(trace)
{
}

bool TimelineTrackEditor::change(const std::function<void(LayoutOptions&)>& edit, bool remember)
{
    m_lanes.changeLayoutOptions(m_trace, edit, remember);
    return true;
}

bool TimelineTrackEditor::isPythonLaneFolded(const TrackLayout& layout, std::uint32_t track)
{
    const auto& folded = layout.options().foldedPythonLanes;
    return track < folded.size() && folded[track];
}

bool TimelineTrackEditor::setTrackPinned(std::uint32_t track, bool pinned)
{
    if (!valid() || track >= trace().tracks().size() || layout().isPinned(track) == pinned)
        return false;
    return change([&](LayoutOptions& options) {
        auto& list = options.pinnedTracks;
        if (pinned)
            list.push_back(track);
        else
            list.erase(std::remove(list.begin(), list.end(), track), list.end());
    });
}

bool TimelineTrackEditor::setGpuFirst(bool first)
{
    if (!valid() || layout().options().gpuFirst == first)
        return false;
    return change([&](LayoutOptions& options) {
        options.gpuFirst = first;
        options.groupOrder.clear(); // the new rule decides; later drags refine it
    });
}

bool TimelineTrackEditor::setPythonLaneFolded(std::uint32_t track, bool folded, bool remember)
{
    if (!valid() || track >= trace().tracks().size() || isPythonLaneFolded(layout(), track) == folded)
        return false;
    const std::size_t tracks = trace().tracks().size();
    return change(
        [&](LayoutOptions& options) {
            options.foldedPythonLanes.resize(tracks, false);
            options.foldedPythonLanes[track] = folded;
        },
        remember);
}

bool TimelineTrackEditor::togglePlotTrack(const TimelineHit& label)
{
    if (!valid())
        return false;
    const bool collapsed = label.item == LayoutItem::Kind::Counter
        ? layout().isCounterCollapsed(label.counter)
        : layout().isMetricCollapsed(label.process, label.counter);
    return setPlotTrackCollapsed(label.item, label.process, label.counter, !collapsed);
}

bool TimelineTrackEditor::setPlotTrackCollapsed(LayoutItem::Kind kind, std::uint32_t process, std::uint32_t index,
                                                bool collapsed)
{
    if (!valid())
        return false;
    const Trace& t = trace();
    if (kind == LayoutItem::Kind::Counter) {
        if (index >= t.counters().size() || layout().isCounterCollapsed(index) == collapsed)
            return false;
        return change([&](LayoutOptions& options) {
            options.collapsedCounters.resize(t.counters().size(), false);
            options.collapsedCounters[index] = collapsed;
        });
    }
    if (process >= t.processes().size() || index >= std::uint32_t(kGpuMetricCount)
        || layout().isMetricCollapsed(process, index) == collapsed)
        return false;
    return change([&](LayoutOptions& options) {
        options.collapsedMetrics.resize(t.processes().size(), 0);
        options.collapsedMetrics[process] ^= std::uint8_t(1u << index);
    });
}

bool TimelineTrackEditor::moveGroup(std::uint32_t process, std::uint32_t before)
{
    if (!valid() || process == before)
        return false;
    std::vector<std::uint32_t> order;
    for (std::uint32_t group : layout().groups()) {
        if (group != process && group != kPinnedGroup && group != kNoIndex)
            order.push_back(group);
    }
    const auto at = std::find(order.begin(), order.end(), before);
    order.insert(at, process);
    return change([&](LayoutOptions& options) { options.groupOrder = std::move(order); });
}

bool TimelineTrackEditor::reset()
{
    if (!valid())
        return false;
    const Trace& t = trace();
    TimelineLayoutSettings::forget(t);
    return change([&](LayoutOptions& options) { TimelineLayoutSettings::load(t, options); }, false);
}

bool TimelineTrackEditor::applyView(const LayoutOptions& options)
{
    if (!valid())
        return false;
    return change(
        [&](LayoutOptions& current) {
            std::vector<std::uint8_t> metricTracks = std::move(current.metricTracks);
            current = options;
            current.metricTracks = std::move(metricTracks);
        },
        false);
}

} // namespace ks
