#include "widgets/crosstracelinks.h"

#include "widgets/timelinerenderer.h"

#include <QPainter>

namespace ks {

namespace {

const QColor kCrossLink(120, 60, 170);
const QColor kCrossLinkSelected(150, 30, 200);
const QColor kCrossLinkHighlighted(255, 170, 0); // as the timeline's highlighted slices

} // namespace

TraceSlice CrossTraceLinks::follow(TraceSlice from, bool incoming) const
{
    for (const CrossTraceLink& link : m_links) {
        if ((incoming ? link.to : link.from) == from)
            return incoming ? link.from : link.to;
    }
    return {};
}

void CrossTraceLinks::paint(QPainter& painter, const QRect& timeArea, TraceSlice selection, const Anchor& anchor)
{
    if (m_links.empty() && m_highlighted.empty())
        return;
    const double timeLeft = timeArea.left();
    const double timeRight = timeLeft + timeArea.width();
    painter.save();
    painter.setClipRect(timeArea);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(QPen(kCrossLinkHighlighted, 2.5));
    for (const CrossTraceLink& link : m_highlighted) {
        bool fromInside = false, toInside = false;
        const QPointF a = anchor(link.from, &fromInside);
        TimelineRenderer::drawFlowCurve(painter, a, anchor(link.to, &toInside), toInside);
        ++m_drawn;
    }
    for (const CrossTraceLink& link : m_links) {
        const bool selected = selection.valid() && (link.from == selection || link.to == selection);
        if (!selected && (!m_all || m_drawn >= std::size_t(TimelineRenderer::kMaxFlowsInView)))
            continue;
        bool fromInside = false, toInside = false;
        const QPointF a = anchor(link.from, &fromInside);
        const QPointF b = anchor(link.to, &toInside);
        // Both ends off the same side of the view: nothing of it would show.
        if (!selected
            && ((a.x() <= timeLeft && b.x() <= timeLeft) || (a.x() >= timeRight - 1 && b.x() >= timeRight - 1)))
            continue;
        painter.setPen(QPen(selected ? kCrossLinkSelected : kCrossLink, selected ? 2.0 : 1.0));
        TimelineRenderer::drawFlowCurve(painter, a, b, toInside);
        ++m_drawn;
    }
    painter.restore();
}

} // namespace ks
