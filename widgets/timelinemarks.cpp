#include "widgets/timelinemarks.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

const QColor kMark(214, 92, 20);
const QColor kMarkRange(214, 92, 20, 70);
constexpr int kFlagHalfWidth = 5;
constexpr int kFlagHeight = 8;
constexpr int kBarHeight = 5;

} // namespace

void TimelineMarks::paint(QPainter& painter, const QRect& timeArea, int rulerHeight, const XOf& xOf) const
{
    if (m_marks.empty())
        return;
    painter.save();
    painter.setClipRect(timeArea);
    painter.setRenderHint(QPainter::Antialiasing, true);
    for (const notes::Mark& mark : m_marks) {
        const double x0 = xOf(mark.start);
        const double x1 = mark.isRange() ? xOf(mark.end) : x0;
        if (x1 < timeArea.left() - kFlagHalfWidth || x0 > timeArea.right() + kFlagHalfWidth)
            continue;
        // A line down the tracks at each end, dashed so that slices stay readable under it.
        painter.setPen(QPen(kMark, 1.0, Qt::DashLine));
        for (double x : {x0, x1})
            painter.drawLine(QPointF(x, rulerHeight), QPointF(x, timeArea.bottom()));
        if (mark.isRange()) {
            const double left = std::max(x0, double(timeArea.left()));
            const double right = std::min(x1, double(timeArea.right()));
            painter.fillRect(QRectF(left, rulerHeight - kBarHeight, right - left, kBarHeight), kMarkRange);
        }
        QPainterPath flag;
        flag.moveTo(x0 - kFlagHalfWidth, rulerHeight - kFlagHeight);
        flag.lineTo(x0 + kFlagHalfWidth, rulerHeight - kFlagHeight);
        flag.lineTo(x0, rulerHeight);
        flag.closeSubpath();
        painter.fillPath(flag, kMark);
    }
    painter.restore();
}

int TimelineMarks::markAt(const QPoint& pos, const QRect& timeArea, int rulerHeight, const XOf& xOf) const
{
    if (pos.y() >= rulerHeight || pos.y() < rulerHeight - kFlagHeight || !timeArea.contains(pos))
        return -1;
    // The nearest flag within its width wins over a range's bar.
    int best = -1;
    double bestDistance = kFlagHalfWidth + 1;
    for (std::size_t i = 0; i < m_marks.size(); ++i) {
        const double distance = std::abs(xOf(m_marks[i].start) - pos.x());
        if (distance < bestDistance) {
            bestDistance = distance;
            best = int(i);
        }
    }
    if (best >= 0 || pos.y() < rulerHeight - kBarHeight)
        return best;
    for (std::size_t i = 0; i < m_marks.size(); ++i) {
        if (m_marks[i].isRange() && xOf(m_marks[i].start) <= pos.x() && pos.x() <= xOf(m_marks[i].end))
            return int(i);
    }
    return -1;
}

} // namespace ks
