// The timeline's track layout, the user's way: pinned tracks above all groups, GPU
// groups first, Python lanes folded to their top row, groups dragged into another order
// (all from the label column's context menu, kept per trace kind in QSettings), and the
// GPU metric tracks inside each GPU's group.
#include "core/gpu/gpureport.h"
#include "widgets/gpumetrictrack.h"
#include "widgets/timelinelayoutsettings.h"
#include "widgets/timelinewidget.h"

#include <QContextMenuEvent>
#include <QMenu>

#include <algorithm>

namespace ks {

bool TimelineWidget::isPythonLaneFolded(std::uint32_t track) const
{
    const auto& folded = trackLayout().options().foldedPythonLanes;
    return track < folded.size() && folded[track];
}

void TimelineWidget::changeLayoutOptions(const std::function<void(LayoutOptions&)>& change, bool remember,
                                         std::uint32_t trace)
{
    if (trace >= m_lanes.size())
        return;
    TrackLayout& layout = m_lanes[trace].layout;
    LayoutOptions options = layout.options();
    change(options);
    if (remember && m_lanes.size() == 1)
        TimelineLayoutSettings::save(*m_lanes[0].source.trace, options);
    layout.setOptions(std::move(options));
    rebuildLayout();
}

void TimelineWidget::setTrackPinned(std::uint32_t track, bool pinned)
{
    if (m_lanes.empty() || track >= trace()->tracks().size() || isTrackPinned(track) == pinned)
        return;
    changeLayoutOptions([&](LayoutOptions& options) {
        auto& list = options.pinnedTracks;
        if (pinned)
            list.push_back(track);
        else
            list.erase(std::remove(list.begin(), list.end(), track), list.end());
    });
}

void TimelineWidget::setGpuFirst(bool first)
{
    if (gpuFirst() == first)
        return;
    changeLayoutOptions([&](LayoutOptions& options) {
        options.gpuFirst = first;
        options.groupOrder.clear(); // the new rule decides; later drags refine it
    });
}

void TimelineWidget::setPythonLaneFolded(std::uint32_t track, bool folded, bool remember)
{
    if (m_lanes.empty() || track >= trace()->tracks().size() || isPythonLaneFolded(track) == folded)
        return;
    changeLayoutOptions(
        [&](LayoutOptions& options) {
            options.foldedPythonLanes.resize(trace()->tracks().size(), false);
            options.foldedPythonLanes[track] = folded;
        },
        remember);
}

void TimelineWidget::setCounterTrackCollapsed(std::uint32_t counter, bool collapsed)
{
    setPlotTrackCollapsed(0, LayoutItem::Kind::Counter, kNoIndex, counter, collapsed);
}

void TimelineWidget::setMetricTrackCollapsed(std::uint32_t process, std::uint32_t metric, bool collapsed)
{
    setPlotTrackCollapsed(0, LayoutItem::Kind::Metric, process, metric, collapsed);
}

void TimelineWidget::togglePlotTrack(std::uint32_t trace, const TimelineHit& label)
{
    const TrackLayout& layout = m_lanes[trace].layout;
    const bool collapsed = label.item == LayoutItem::Kind::Counter
        ? layout.isCounterCollapsed(label.counter)
        : layout.isMetricCollapsed(label.process, label.counter);
    setPlotTrackCollapsed(trace, label.item, label.process, label.counter, !collapsed);
}

void TimelineWidget::setPlotTrackCollapsed(std::uint32_t trace, LayoutItem::Kind kind, std::uint32_t process,
                                           std::uint32_t index, bool collapsed)
{
    if (trace >= m_lanes.size())
        return;
    const Trace& t = *m_lanes[trace].source.trace;
    const TrackLayout& layout = m_lanes[trace].layout;
    if (kind == LayoutItem::Kind::Counter) {
        if (index >= t.counters().size() || layout.isCounterCollapsed(index) == collapsed)
            return;
        changeLayoutOptions(
            [&](LayoutOptions& options) {
                options.collapsedCounters.resize(t.counters().size(), false);
                options.collapsedCounters[index] = collapsed;
            },
            true, trace);
    } else {
        if (process >= t.processes().size() || index >= std::uint32_t(kGpuMetricCount)
            || layout.isMetricCollapsed(process, index) == collapsed)
            return;
        changeLayoutOptions(
            [&](LayoutOptions& options) {
                options.collapsedMetrics.resize(t.processes().size(), 0);
                options.collapsedMetrics[process] ^= std::uint8_t(1u << index);
            },
            true, trace);
    }
}

void TimelineWidget::moveGroup(std::uint32_t process, std::uint32_t before)
{
    if (m_lanes.empty() || process == before)
        return;
    std::vector<std::uint32_t> order;
    for (std::uint32_t group : trackLayout().groups()) {
        if (group != process && group != kPinnedGroup && group != kNoIndex)
            order.push_back(group);
    }
    const auto at = std::find(order.begin(), order.end(), before);
    order.insert(at, process);
    changeLayoutOptions([&](LayoutOptions& options) { options.groupOrder = std::move(order); });
}

void TimelineWidget::resetTrackLayout()
{
    if (m_lanes.empty())
        return;
    const Trace& trace = *m_lanes[0].source.trace;
    TimelineLayoutSettings::forget(trace);
    changeLayoutOptions([&](LayoutOptions& options) { TimelineLayoutSettings::load(trace, options); }, false);
}

void TimelineWidget::setGpuReport(std::shared_ptr<const gpu::GpuReport> report)
{
    if (m_gpuReportCarried || !report)
        m_gpuReports.clear();
    if (report) {
        std::erase_if(m_gpuReports, [&](const auto& shown) { return shown->trace == report->trace; });
        m_gpuReports.push_back(std::move(report));
    }
    m_gpuReportCarried = false;
    applyGpuMetricTracks();
}

void TimelineWidget::setGpuMetricTracksShown(bool shown)
{
    if (m_gpuMetricTracks == shown)
        return;
    m_gpuMetricTracks = shown;
    applyGpuMetricTracks();
}

void TimelineWidget::applyGpuMetricTracks()
{
    for (Lane& lane : m_lanes) {
        std::shared_ptr<const gpu::GpuReport> report = gpuReportOf(lane);
        const bool ours = report != nullptr;
        lane.renderer->setGpuReport(std::move(report));
        LayoutOptions options = lane.layout.options();
        options.metricTracks.assign(lane.source.trace->processes().size(), 0);
        for (std::uint32_t p = 0; ours && m_gpuMetricTracks && p < options.metricTracks.size(); ++p) {
            if (lane.renderer->gpuMetricIndex(p))
                options.metricTracks[p] = std::uint8_t(kGpuMetricCount);
        }
        lane.layout.setOptions(std::move(options));
    }
    rebuildLayout();
}

std::shared_ptr<const gpu::GpuReport> TimelineWidget::gpuReportOf(const Lane& lane) const
{
    if (m_gpuReportCarried && &lane == &m_lanes.front() && !m_gpuReports.empty())
        return m_gpuReports.front();
    for (const auto& report : m_gpuReports) {
        if (report->trace == lane.source.trace)
            return report;
    }
    return nullptr;
}

void TimelineWidget::contextMenuEvent(QContextMenuEvent* event)
{
    const LaneHit at = hitAt(event->pos());
    if (at.trace < m_lanes.size() && at.hit.kind == TimelineHit::Kind::Slice && at.hit.slice != kNoSlice
        && event->pos().x() >= TimelineRenderer::kLabelWidth) {
        execSliceMenu({at.trace, at.hit.slice}, event->globalPos());
        return;
    }
    if (m_lanes.empty() || at.trace != 0 || event->pos().x() >= TimelineRenderer::kLabelWidth) {
        QAbstractScrollArea::contextMenuEvent(event);
        return;
    }
    QMenu menu(this);
    const std::uint32_t track = at.hit.track;
    if (track != kNoIndex) {
        const bool pinned = isTrackPinned(track);
        menu.addAction(pinned ? tr("Unpin") : tr("Pin to Top"), this,
                       [this, track, pinned] { setTrackPinned(track, !pinned); });
        const auto& lanes = trace()->tracks()[track].lanes;
        if (std::any_of(lanes.begin(), lanes.end(), [](const ks::Lane& l) { return l.kind == LaneKind::Python; })) {
            const bool folded = isPythonLaneFolded(track);
            menu.addAction(folded ? tr("Unfold Python Lane") : tr("Fold Python Lane"), this,
                           [this, track, folded] { setPythonLaneFolded(track, !folded); });
        }
    }
    const std::uint32_t process = at.hit.process;
    if (at.hit.kind == TimelineHit::Kind::ProcessHeader && process != kPinnedGroup && process != kNoIndex) {
        const auto& groups = trackLayout().groups();
        const auto it = std::find(groups.begin(), groups.end(), process);
        if (it != groups.begin() && *(it - 1) != kPinnedGroup)
            menu.addAction(tr("Move Group Up"), this,
                           [this, process, before = *(it - 1)] { moveGroup(process, before); });
        if (it != groups.end() && it + 1 != groups.end()) {
            const std::uint32_t after = it + 2 != groups.end() ? *(it + 2) : kNoIndex;
            menu.addAction(tr("Move Group Down"), this, [this, process, after] { moveGroup(process, after); });
        }
    }
    menu.addSeparator();
    QAction* gpu = menu.addAction(tr("GPU Groups First"), this, &TimelineWidget::setGpuFirst);
    gpu->setCheckable(true);
    gpu->setChecked(gpuFirst());
    menu.addAction(tr("Reset Track Layout"), this, &TimelineWidget::resetTrackLayout);
    menu.exec(event->globalPos());
}

} // namespace ks
