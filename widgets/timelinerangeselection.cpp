#include "widgets/timelinerangeselection.h"

#include "widgets/timelinerenderer.h"

#include <QCoreApplication>
#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace ks {

namespace {

// Narrower than this on screen a drag is a click (it clears the range).
constexpr int kMinRangePixels = 2;

QString qstr(const std::string& text) { return QString::fromStdString(text); }

} // namespace

void TimelineRangeSelection::set(TimeNs start, TimeNs end)
{
    m_start = std::min(start, end);
    m_end = std::max(start, end);
    m_active = true;
}

bool TimelineRangeSelection::clear()
{
    const bool was = m_active;
    m_start = m_end = 0;
    m_active = false;
    return was;
}

void TimelineRangeSelection::beginDrag(TimeNs anchor)
{
    m_dragging = true;
    m_anchor = anchor;
}

void TimelineRangeSelection::dragTo(TimeNs t) { set(t, m_anchor); }

bool TimelineRangeSelection::finishDrag(double nsPerPixel)
{
    m_dragging = false;
    const double widthPx = double(m_end - m_start) / nsPerPixel;
    if (m_active && widthPx >= kMinRangePixels)
        return true;
    clear();
    return false;
}

void TimelineRangeSelection::paint(QPainter& painter, const QSize& size, const TimeScale& axis, TimeNs origin,
                                   double cursorX, const QPalette& palette) const
{
    if (!m_active)
        return;
    const int left = TimelineRenderer::kLabelWidth;
    const double x0 = left + axis.timeToX(m_start);
    const double x1 = left + axis.timeToX(m_end);
    const int right = left + TimelineRenderer::timeAreaWidth(size);
    if (x1 < left || x0 > right)
        return;
    const int a = int(std::max<double>(x0, left));
    const int b = std::max(a + 1, int(std::min<double>(x1, right)));
    const QColor accent = palette.color(QPalette::Highlight);
    QColor shade = accent;
    shade.setAlpha(40);
    painter.save();
    painter.fillRect(QRect(a, 0, b - a, size.height()), shade);
    for (double edge : {x0, x1}) {
        if (edge >= left && edge <= right)
            painter.fillRect(QRect(int(edge), 0, 1, size.height()), accent);
    }
    // Start, end and duration on the ruler, relative to the trace start like its ticks.
    const QString label = QCoreApplication::translate("ks::TimelineWidget", "%1 – %2 (%3)")
                              .arg(qstr(formatDuration(m_start - origin)), qstr(formatDuration(m_end - origin)),
                                   qstr(formatDuration(m_end - m_start)));
    const QFontMetrics metrics(painter.font());
    const int textWidth = metrics.horizontalAdvance(label) + 8;
    const int textX = std::clamp((a + b - textWidth) / 2, left, std::max(left, right - textWidth));
    QRect box(textX, 1, textWidth, TimelineRenderer::kRulerHeight - 3);
    // The hover cursor labels its time on the ruler right of its x: over that label, the
    // range's would cut it to a wrong-looking number, so it goes under the ruler instead.
    const int cursor = left + int(cursorX);
    const int cursorLabelWidth = metrics.horizontalAdvance(QStringLiteral("00000.000 µs")) + 8;
    if (cursorX >= 0 && cursor + cursorLabelWidth >= box.left() && cursor <= box.right())
        box.moveTop(TimelineRenderer::kRulerHeight + 1);
    painter.fillRect(box, accent);
    painter.setPen(palette.color(QPalette::HighlightedText));
    painter.drawText(box, Qt::AlignCenter, label);
    painter.restore();
}

} // namespace ks
