#include "widgets/timelineinput.h"

#include "widgets/timelinewidget.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <utility>

namespace ks {

namespace {

constexpr double kZoomStep = 1.25;
constexpr double kPanFraction = 0.15;
constexpr int kDragThreshold = 3;

} // namespace

TimelineInput::TimelineInput(TimelineWidget& timeline)
    : m_timeline(timeline)
{
}

void TimelineInput::reset()
{
    m_dragging = false;
    m_groupDrag = kNoIndex;
}

// Wheel: over the tracks it zooms at the cursor (like Tracy and hotspot); over the
// label column, or with Shift, it scrolls vertically; a horizontal wheel pans; Ctrl
// always zooms.
bool TimelineInput::wheel(QWheelEvent* event)
{
    const QPoint delta = event->angleDelta();
    const QPointF pos = event->position();
    const bool zoom = event->modifiers() & Qt::ControlModifier
        || (!(event->modifiers() & Qt::ShiftModifier) && pos.x() >= TimelineRenderer::kLabelWidth);
    if (delta.x() != 0 && delta.y() == 0)
        m_timeline.panBy(-delta.x() / 120.0 * m_timeline.timeAreaWidth() * 0.1);
    else if (zoom && delta.y() != 0)
        m_timeline.zoomAt(pos.x(), std::pow(kZoomStep, -delta.y() / 120.0));
    else
        return false;
    event->accept();
    return true;
}

bool TimelineInput::startsRangeDrag(const QMouseEvent* event) const
{
    const QPointF pos = event->position();
    if (!m_timeline.trace() || event->button() != Qt::LeftButton || pos.x() < TimelineRenderer::kLabelWidth)
        return false;
    return pos.y() < TimelineRenderer::kRulerHeight || (event->modifiers() & Qt::ShiftModifier);
}

void TimelineInput::dragRangeTo(double viewportX)
{
    const double x = std::clamp(viewportX - TimelineRenderer::kLabelWidth, 0.0, double(m_timeline.timeAreaWidth()));
    m_timeline.m_range.dragTo(m_timeline.m_state.scale.xToTime(x));
    m_timeline.viewport()->update();
}

bool TimelineInput::press(QMouseEvent* event)
{
    if (startsRangeDrag(event)) {
        m_timeline.m_range.beginDrag(
            m_timeline.m_state.scale.xToTime(event->position().x() - TimelineRenderer::kLabelWidth));
        event->accept();
        return true;
    }
    if (event->button() == Qt::LeftButton) {
        m_pressPos = event->position().toPoint();
        m_lastDragPos = m_pressPos;
        m_dragging = false;
        const TimelineLanes::Hit at = m_timeline.hitAt(m_pressPos);
        const bool header = at.trace == 0 && at.hit.kind == TimelineHit::Kind::ProcessHeader
            && at.hit.process != kPinnedGroup && at.hit.process != kNoIndex;
        m_groupDrag = header && m_pressPos.x() < TimelineRenderer::kLabelWidth ? at.hit.process : kNoIndex;
    }
    return false;
}

void TimelineInput::move(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    QWidget* viewport = m_timeline.viewport();
    if (m_timeline.m_range.dragging()) {
        dragRangeTo(pos.x());
    } else if (event->buttons() & Qt::LeftButton) {
        if (!m_dragging && (pos - m_pressPos).manhattanLength() > kDragThreshold)
            m_dragging = true;
        if (m_dragging && m_groupDrag != kNoIndex) {
            viewport->setCursor(Qt::ClosedHandCursor);
        } else if (m_dragging) {
            const QPoint d = pos - m_lastDragPos;
            m_lastDragPos = pos;
            if (d.x() != 0)
                m_timeline.panBy(-d.x());
            if (d.y() != 0)
                m_timeline.verticalScrollBar()->setValue(m_timeline.verticalScrollBar()->value() - d.y());
        }
    }
    m_timeline.m_state.cursorX =
        pos.x() >= TimelineRenderer::kLabelWidth ? pos.x() - TimelineRenderer::kLabelWidth : -1;
    if (!m_dragging) {
        const TimelineLanes::Hit at = m_timeline.hitAt(pos);
        m_timeline.m_selection.hovered =
            at.hit.kind == TimelineHit::Kind::Slice ? TraceSlice{at.trace, at.hit.slice} : TraceSlice{};
    }
    viewport->update();
}

void TimelineInput::release(QMouseEvent* event)
{
    if (m_timeline.m_range.dragging() && event->button() == Qt::LeftButton) {
        dragRangeTo(event->position().x());
        m_timeline.finishRangeDrag();
        return;
    }
    if (event->button() == Qt::LeftButton && m_dragging && m_groupDrag != kNoIndex)
        finishGroupDrag(event);
    m_groupDrag = kNoIndex;
    if (event->button() != Qt::LeftButton || m_dragging || !m_timeline.trace()) {
        m_dragging = false;
        return;
    }
    click(event);
}

// Dropped on a group: the dragged one goes before it.
void TimelineInput::finishGroupDrag(const QMouseEvent* event)
{
    const TimelineLanes::Hit at = m_timeline.hitAt(event->position().toPoint());
    const int contentY = int(event->position().y()) - TimelineRenderer::kRulerHeight + m_timeline.scrollY();
    const LayoutItem* item = at.trace == 0 ? m_timeline.trackLayout().itemAt(contentY) : nullptr;
    m_timeline.viewport()->unsetCursor();
    if (item && item->group != kPinnedGroup)
        m_timeline.moveGroup(std::exchange(m_groupDrag, kNoIndex), item->group);
}

void TimelineInput::click(const QMouseEvent* event)
{
    TimelineWidget& w = m_timeline;
    const TimelineLanes::Hit at = w.hitAt(event->position().toPoint());
    if (at.header) {
        w.setTraceCollapsed(at.trace, !w.isTraceCollapsed(at.trace));
        return;
    }
    const TimelineHit& hit = at.hit;
    switch (hit.kind) {
    case TimelineHit::Kind::ProcessHeader:
        w.setProcessCollapsed(at.trace, hit.process, !w.isProcessCollapsed(at.trace, hit.process));
        break;
    case TimelineHit::Kind::Slice: w.select({at.trace, hit.slice}, true); break;
    case TimelineHit::Kind::Instant: w.selectInstant(at.trace, hit.instant); break;
    case TimelineHit::Kind::Folded: {
        // Too small to pick one: zoom in on the run instead.
        const SliceTable& slices = w.traceAt(at.trace)->slices();
        const SliceId last = hit.slice + hit.count - 1;
        const TimeNs offset = w.traceOffset(at.trace);
        w.setAxisRange(slices.start[hit.slice] + offset, slices.end(last) + offset);
        break;
    }
    case TimelineHit::Kind::Label:
        if (hit.item == LayoutItem::Kind::Counter || hit.item == LayoutItem::Kind::Metric)
            w.togglePlotTrack(at.trace, hit);
        else
            w.clearSelection();
        break;
    case TimelineHit::Kind::Counter:
    case TimelineHit::Kind::Metric:
        w.clearSelection();
        Q_EMIT w.plotTimeClicked(at.trace, w.toTraceTime(at.trace, w.timeAtViewportX(event->position().x())));
        break;
    case TimelineHit::Kind::None: w.clearSelection(); break;
    }
}

void TimelineInput::leave()
{
    m_timeline.m_state.cursorX = -1;
    m_timeline.m_selection.hovered = {};
    m_timeline.viewport()->update();
}

// Keys as in Perfetto and chrome://tracing.
bool TimelineInput::key(QKeyEvent* event)
{
    TimelineWidget& w = m_timeline;
    const double cursorX = w.m_state.cursorX;
    const double centre = TimelineRenderer::kLabelWidth + (cursorX >= 0 ? cursorX : w.timeAreaWidth() / 2.0);
    const bool alt = event->modifiers() & Qt::AltModifier;
    switch (event->key()) {
    case Qt::Key_W: w.zoomAt(centre, 1.0 / kZoomStep); break;
    case Qt::Key_S: w.zoomAt(centre, kZoomStep); break;
    case Qt::Key_A: w.panBy(-w.timeAreaWidth() * kPanFraction); break;
    case Qt::Key_D: w.panBy(w.timeAreaWidth() * kPanFraction); break;
    case Qt::Key_F:
        if (w.hasSelectedRange())
            w.zoomToSelectedRange();
        else
            w.fitSelection();
        break;
    case Qt::Key_0:
    case Qt::Key_Home: w.fitAll(); break;
    case Qt::Key_Escape:
        if (w.hasSelectedRange())
            w.clearSelectedRange();
        else
            w.clearSelection();
        break;
    case Qt::Key_BracketLeft: w.followIncomingFlow(); break;
    case Qt::Key_BracketRight: w.followOutgoingFlow(); break;
    case Qt::Key_Left:
        if (!alt)
            return false;
        w.goBack();
        break;
    case Qt::Key_Right:
        if (!alt)
            return false;
        w.goForward();
        break;
    default: return false;
    }
    event->accept();
    return true;
}

} // namespace ks
