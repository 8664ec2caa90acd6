// The timeline's frame with several traces: each trace's band painted by its own
// renderer, the trace headers, the cross-trace links and the shared ruler; and hit
// testing that finds the trace under the cursor first.
#include "widgets/timelinewidget.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace ks {

namespace {

const QColor kTraceHeader(52, 64, 88);
const QColor kTraceHeaderEdge(20, 24, 32);
const QColor kCrossLink(120, 60, 170);
const QColor kCrossLinkSelected(150, 30, 200);

} // namespace

void TimelineWidget::paintFrame(QPainter& painter)
{
    const QSize size = viewport()->size();
    m_crossLinksDrawn = 0;
    if (m_lanes.size() <= 1) {
        // One trace: exactly the single-trace frame.
        if (m_lanes.empty())
            m_emptyRenderer.paint(painter, size, m_emptyLayout, m_state);
        else
            m_lanes[0].renderer->paint(painter, size, m_lanes[0].layout, laneState(0));
        paintShadedRanges(painter);
        paintSelectedRange(painter);
        paintMarks(painter);
        return;
    }
    painter.fillRect(QRect(QPoint(0, 0), size), m_emptyRenderer.chrome().background);
    const int toView = TimelineRenderer::kRulerHeight - m_state.scrollY;
    for (std::uint32_t i = 0; i < m_lanes.size(); ++i) {
        if (m_stack.bodyHeight(i) == 0)
            continue;
        const QRect band(0, m_stack.bodyTop(i) + toView, size.width(), m_stack.bodyHeight(i));
        m_lanes[i].renderer->paintBand(painter, size, m_lanes[i].layout, laneState(i), band);
    }
    paintLaneHeaders(painter);
    paintCrossLinks(painter);
    m_lanes[0].renderer->paintRuler(painter, size, m_lanes[0].layout, laneState(0));
    paintShadedRanges(painter);
    paintSelectedRange(painter);
    paintMarks(painter);
}

void TimelineWidget::setMarks(std::vector<notes::Mark> marks)
{
    m_marks.setMarks(std::move(marks));
    viewport()->update();
}

QRect TimelineWidget::marksArea() const
{
    return QRect(TimelineRenderer::kLabelWidth, 0, timeAreaWidth(), viewport()->height());
}

void TimelineWidget::paintMarks(QPainter& painter) const
{
    m_marks.paint(painter, marksArea(), TimelineRenderer::kRulerHeight, [this](TimeNs t) { return viewportXOf(t); });
}

void TimelineWidget::paintLaneHeaders(QPainter& painter) const
{
    const QSize size = viewport()->size();
    const int tracksTop = TimelineRenderer::kRulerHeight;
    painter.save();
    painter.setClipRect(QRect(0, tracksTop, size.width(), TimelineRenderer::tracksAreaHeight(size)));
    QFont bold = painter.font();
    bold.setBold(true);
    bold.setPixelSize(12);
    painter.setFont(bold);
    const QFontMetrics metrics(bold);
    for (std::uint32_t i = 0; i < m_lanes.size(); ++i) {
        const int y = m_stack.headerTop(i) - m_state.scrollY + tracksTop;
        const int h = StackedTraceLayout::kHeaderHeight;
        if (y + h < tracksTop || y > size.height())
            continue;
        painter.fillRect(QRect(0, y, size.width(), h), kTraceHeader);
        painter.fillRect(QRect(0, y + h - 1, size.width(), 1), kTraceHeaderEdge);
        const QString text =
            (isTraceCollapsed(i) ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + m_lanes[i].source.title;
        painter.setPen(Qt::white);
        const int textWidth = size.width() - 12;
        painter.drawText(QRect(6, y, textWidth, h), Qt::AlignVCenter,
                         metrics.elidedText(text, Qt::ElideRight, textWidth));
    }
    painter.restore();
}

QPointF TimelineWidget::crossLinkAnchor(TraceSlice end, bool* inside) const
{
    const QSize size = viewport()->size();
    const Lane& lane = m_lanes[end.trace];
    QPointF point = lane.renderer->sliceAnchor(size, lane.layout, laneState(end.trace), end.slice, inside);
    if (isTraceCollapsed(end.trace)) {
        // A collapsed trace: point at its header.
        const double y = m_stack.headerTop(end.trace) - m_state.scrollY + TimelineRenderer::kRulerHeight
            + StackedTraceLayout::kHeaderHeight / 2.0;
        point.setY(std::clamp(y, double(TimelineRenderer::kRulerHeight + 1), double(size.height() - 2)));
    }
    return point;
}

void TimelineWidget::paintCrossLinks(QPainter& painter)
{
    if (m_crossLinks.empty())
        return;
    const double timeLeft = TimelineRenderer::kLabelWidth;
    const double timeRight = timeLeft + timeAreaWidth();
    painter.save();
    painter.setClipRect(QRect(TimelineRenderer::kLabelWidth, TimelineRenderer::kRulerHeight, timeAreaWidth(),
                              TimelineRenderer::tracksAreaHeight(viewport()->size())));
    painter.setRenderHint(QPainter::Antialiasing, true);
    for (const CrossTraceLink& link : m_crossLinks) {
        const bool selected = m_selection.valid() && (link.from == m_selection || link.to == m_selection);
        if (!selected && (!m_allCrossLinks || m_crossLinksDrawn >= std::size_t(TimelineRenderer::kMaxFlowsInView)))
            continue;
        bool fromInside = false, toInside = false;
        const QPointF a = crossLinkAnchor(link.from, &fromInside);
        const QPointF b = crossLinkAnchor(link.to, &toInside);
        // Both ends off the same side of the view: nothing of it would show.
        if (!selected
            && ((a.x() <= timeLeft && b.x() <= timeLeft) || (a.x() >= timeRight - 1 && b.x() >= timeRight - 1)))
            continue;
        painter.setPen(QPen(selected ? kCrossLinkSelected : kCrossLink, selected ? 2.0 : 1.0));
        TimelineRenderer::drawFlowCurve(painter, a, b, toInside);
        ++m_crossLinksDrawn;
    }
    painter.restore();
}

TimelineWidget::LaneHit TimelineWidget::hitAt(const QPoint& pos) const
{
    LaneHit result;
    if (m_lanes.empty() || pos.y() < TimelineRenderer::kRulerHeight)
        return result;
    const QSize size = viewport()->size();
    if (m_lanes.size() == 1) {
        result.trace = 0;
        result.hit = m_lanes[0].renderer->hitTest(pos, size, m_lanes[0].layout, laneState(0));
        return result;
    }
    const auto at = m_stack.at(pos.y() - TimelineRenderer::kRulerHeight + m_state.scrollY);
    if (at.trace == kNoIndex)
        return result;
    result.trace = at.trace;
    result.header = at.header;
    if (!at.header)
        result.hit = m_lanes[at.trace].renderer->hitTest(pos, size, m_lanes[at.trace].layout, laneState(at.trace));
    return result;
}

} // namespace ks
