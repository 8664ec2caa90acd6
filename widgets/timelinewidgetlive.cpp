// TimelineWidget's part in a live recording: a newer snapshot keeps the view of the older one
// (TimelineSnapshotCarryOver), and the time a live window leaves out is hatched, labelled and
// reachable by scrolling.
#include "widgets/timelinewidget.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace ks {

TimelineSnapshotCarryOver::View TimelineWidget::snapshotView() const
{
    TimelineSnapshotCarryOver::View view;
    if (m_lanes.size() != 1)
        return view; // a comparison or the ranks of a run are not live
    view.trace = m_lanes[0].source.trace;
    view.options = m_lanes[0].layout.options();
    view.collapsed = m_lanes[0].collapsed;
    view.scrollY = m_state.scrollY;
    view.hasRange = m_range.active();
    view.range = selectedRange();
    if (m_selection.slice.trace == 0)
        view.selected = m_selection.slice.slice;
    view.history = m_history;
    return view;
}

void TimelineWidget::restoreSnapshotView(const TimelineSnapshotCarryOver::View& view)
{
    if (!view.trace || m_lanes.size() != 1)
        return;
    TimelineLane& lane = m_lanes[0];
    const TimelineSnapshotCarryOver carry(*view.trace, *lane.source.trace);
    lane.layout.setOptions(carry.layoutOptions(view.options, lane.layout.options()));
    carry.carryCollapsed(view.collapsed, lane.collapsed);
    m_state.scrollY = view.scrollY;
    rebuildLayout(); // clamps the scroll to the new height
    if (view.hasRange)
        setSelectedRange(view.range.start, view.range.end);
    if (const SliceId found = carry.slice(view.selected); found != kNoSlice)
        select({0, found}, false);
    m_history = view.history;
    carry.remap(m_history);
    Q_EMIT historyChanged();
}

TimeExtent TimelineWidget::navigableExtent() const
{
    TimeExtent extent = m_lanes.navigableExtent();
    if (!m_lanes.empty() && m_leftOutBefore > trace()->startTime())
        extent.start = std::min(extent.start, trace()->startTime() + primaryOffset());
    return extent;
}

void TimelineWidget::setLeftOutBefore(TimeNs time)
{
    if (time == m_leftOutBefore)
        return;
    m_leftOutBefore = time;
    updateScrollBars();
    viewport()->update();
}

void TimelineWidget::paintLeftOut(QPainter& painter, const QSize& size) const
{
    if (m_lanes.empty() || m_leftOutBefore <= trace()->startTime())
        return;
    const QRect timeArea(TimelineRenderer::kLabelWidth, TimelineRenderer::kRulerHeight, timeAreaWidth(),
                         TimelineRenderer::tracksAreaHeight(size));
    const double right = std::min(viewportXOf(m_leftOutBefore), double(timeArea.right() + 1));
    if (right <= timeArea.left())
        return;
    const QRect band(timeArea.left(), timeArea.top(), int(right) - timeArea.left(), timeArea.height());
    QColor shade = palette().color(QPalette::Mid);
    shade.setAlpha(90);
    painter.fillRect(band, QBrush(shade, Qt::BDiagPattern));
    const QString note = tr("Earlier events are left out of the live timeline; the finished recording holds them");
    const QFontMetrics metrics(painter.font());
    if (metrics.horizontalAdvance(note) + 16 <= band.width()) {
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(band, Qt::AlignCenter, note);
    }
}

} // namespace ks
