// The timeline's range selection (as in Perfetto and Nsight Systems): Shift+drag on the
// tracks or a plain drag on the ruler selects a time range; the ruler shows its start,
// end and duration; F zooms to it and Esc clears it.
#include "widgets/timelinewidget.h"

#include <QFontMetrics>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace ks {

namespace {

// Narrower than this on screen a drag is a click (it clears the range).
constexpr int kMinRangePixels = 2;

QString qstr(const std::string& text) { return QString::fromStdString(text); }

} // namespace

TimeExtent TimelineWidget::selectedRange() const
{
    return {m_range.start - primaryOffset(), m_range.end - primaryOffset()};
}

TimeExtent TimelineWidget::focusRange() const
{
    if (m_range.active)
        return selectedRange();
    const TimeScale scale = timeScale();
    return {scale.viewStart(), scale.viewEnd(timeAreaWidth())};
}

void TimelineWidget::setSelectedRange(TimeNs start, TimeNs end)
{
    if (end < start)
        std::swap(start, end);
    if (m_lanes.empty() || end == start)
        return clearSelectedRange();
    m_range = {start + primaryOffset(), end + primaryOffset(), true};
    viewport()->update();
    Q_EMIT rangeSelected(start, end);
}

void TimelineWidget::clearSelectedRange()
{
    if (!m_range.active)
        return;
    m_range = {};
    viewport()->update();
    Q_EMIT rangeCleared();
}

void TimelineWidget::zoomToSelectedRange()
{
    if (m_range.active)
        setAxisRange(m_range.start, m_range.end);
}

bool TimelineWidget::startsRangeDrag(const QMouseEvent* event) const
{
    const QPointF pos = event->position();
    if (m_lanes.empty() || event->button() != Qt::LeftButton || pos.x() < TimelineRenderer::kLabelWidth)
        return false;
    return pos.y() < TimelineRenderer::kRulerHeight || (event->modifiers() & Qt::ShiftModifier);
}

void TimelineWidget::dragRangeTo(double viewportX)
{
    const double x = std::clamp(viewportX - TimelineRenderer::kLabelWidth, 0.0, double(timeAreaWidth()));
    const TimeNs t = m_state.scale.xToTime(x);
    m_range = {std::min(t, m_rangeAnchor), std::max(t, m_rangeAnchor), true};
    viewport()->update();
}

void TimelineWidget::finishRangeDrag()
{
    m_rangeDragging = false;
    const double widthPx = double(m_range.end - m_range.start) / m_state.scale.nsPerPixel();
    if (!m_range.active || widthPx < kMinRangePixels) {
        m_range.active = true; // so that clearing reports it
        clearSelectedRange();
        return;
    }
    Q_EMIT rangeSelected(m_range.start - primaryOffset(), m_range.end - primaryOffset());
}

void TimelineWidget::setShadedRanges(std::uint32_t trace, std::vector<TimeExtent> ranges)
{
    for (Lane& lane : m_lanes)
        lane.shadedRanges.clear();
    if (trace < m_lanes.size())
        m_lanes[trace].shadedRanges = std::move(ranges);
    viewport()->update();
}

const std::vector<TimeExtent>& TimelineWidget::shadedRanges(std::uint32_t trace) const
{
    static const std::vector<TimeExtent> none;
    return trace < m_lanes.size() ? m_lanes[trace].shadedRanges : none;
}

// Below the ruler, across every track: the gaps an insight counts (GPU idle) show where they are.
void TimelineWidget::paintShadedRanges(QPainter& painter) const
{
    const int left = TimelineRenderer::kLabelWidth;
    const int right = left + timeAreaWidth();
    const int top = TimelineRenderer::kRulerHeight;
    const int height = viewport()->height() - top;
    QColor shade(230, 120, 20, 60);
    for (const Lane& lane : m_lanes) {
        for (const TimeExtent& range : lane.shadedRanges) {
            const double x0 = left + m_state.scale.timeToX(range.start + lane.source.offset);
            const double x1 = left + m_state.scale.timeToX(range.end + lane.source.offset);
            if (x1 < left || x0 > right)
                continue;
            const int a = int(std::max<double>(x0, left));
            const int b = std::max(a + 1, int(std::min<double>(x1, right)));
            painter.fillRect(QRect(a, top, b - a, height), shade);
        }
    }
}

void TimelineWidget::paintSelectedRange(QPainter& painter) const
{
    if (!m_range.active || m_lanes.empty())
        return;
    const QSize size = viewport()->size();
    const int left = TimelineRenderer::kLabelWidth;
    const double x0 = left + m_state.scale.timeToX(m_range.start);
    const double x1 = left + m_state.scale.timeToX(m_range.end);
    const int right = left + timeAreaWidth();
    if (x1 < left || x0 > right)
        return;
    const int a = int(std::max<double>(x0, left));
    const int b = std::max(a + 1, int(std::min<double>(x1, right)));
    const QColor accent = palette().color(QPalette::Highlight);
    QColor shade = accent;
    shade.setAlpha(40);
    painter.save();
    painter.fillRect(QRect(a, 0, b - a, size.height()), shade);
    for (double edge : {x0, x1}) {
        if (edge >= left && edge <= right)
            painter.fillRect(QRect(int(edge), 0, 1, size.height()), accent);
    }
    // Start, end and duration on the ruler, relative to the trace start like its ticks.
    const TimeNs origin = m_lanes[0].source.trace->startTime() + primaryOffset();
    const QString label =
        tr("%1 – %2 (%3)")
            .arg(qstr(formatDuration(m_range.start - origin)), qstr(formatDuration(m_range.end - origin)),
                 qstr(formatDuration(m_range.end - m_range.start)));
    const QFontMetrics metrics(painter.font());
    const int textWidth = metrics.horizontalAdvance(label) + 8;
    const int textX = std::clamp((a + b - textWidth) / 2, left, std::max(left, right - textWidth));
    QRect box(textX, 1, textWidth, TimelineRenderer::kRulerHeight - 3);
    // The hover cursor labels its time on the ruler right of its x: over that label, the
    // range's would cut it to a wrong-looking number, so it goes under the ruler instead.
    const int cursor = left + int(m_state.cursorX);
    const int cursorLabelWidth = metrics.horizontalAdvance(QStringLiteral("00000.000 µs")) + 8;
    if (m_state.cursorX >= 0 && cursor + cursorLabelWidth >= box.left() && cursor <= box.right())
        box.moveTop(TimelineRenderer::kRulerHeight + 1);
    painter.fillRect(box, accent);
    painter.setPen(palette().color(QPalette::HighlightedText));
    painter.drawText(box, Qt::AlignCenter, label);
    painter.restore();
}

} // namespace ks
