#include "widgets/waitheatmap.h"

#include "widgets/statsformat.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

constexpr int kAxisWidth = 48; // rank labels on the left
constexpr int kAxisHeight = 16; // step labels below

QRgb heat(double fraction)
{
    // White (no waiting caused) to dark red (the most in the job), on a square root so that
    // smaller causes stay visible next to a straggler.
    const double f = std::sqrt(std::clamp(fraction, 0.0, 1.0));
    return qRgb(255 - int(f * 95), 255 - int(f * 235), 255 - int(f * 235));
}

} // namespace

WaitHeatMap::WaitHeatMap(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumHeight(80);
    setToolTip(tr("Waiting each rank caused per step: the others' wait in the collectives it arrived last to"));
}

void WaitHeatMap::setMap(analysis::WaitHeatMap map)
{
    m_map = std::move(map);
    rebuildImage();
    update();
}

QRect WaitHeatMap::cellArea() const { return rect().adjusted(kAxisWidth, 2, -2, -kAxisHeight); }

void WaitHeatMap::rebuildImage()
{
    const int rows = int(m_map.ranks.size()), columns = int(m_map.steps.size());
    if (rows == 0 || columns == 0 || m_map.max <= 0) {
        m_image = {};
        return;
    }
    // At most 2,048 pixels a side: each pixel keeps the largest cell it stands for.
    const int height = std::min(rows, 2048), width = std::min(columns, 2048);
    std::vector<TimeNs> pixels(std::size_t(height) * std::size_t(width), 0);
    for (int r = 0; r < rows; ++r) {
        const int y = int(std::int64_t(r) * height / rows);
        for (int c = 0; c < columns; ++c) {
            const int x = int(std::int64_t(c) * width / columns);
            auto& p = pixels[std::size_t(y) * std::size_t(width) + std::size_t(x)];
            p = std::max(p, m_map.at(std::size_t(r), std::size_t(c)));
        }
    }
    m_image = QImage(width, height, QImage::Format_RGB32);
    for (int y = 0; y < height; ++y) {
        auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(y));
        for (int x = 0; x < width; ++x)
            line[x] = heat(double(pixels[std::size_t(y) * std::size_t(width) + std::size_t(x)]) / double(m_map.max));
    }
}

std::pair<int, int> WaitHeatMap::cellAt(QPoint point) const
{
    const QRect area = cellArea();
    if (!area.contains(point) || m_map.ranks.empty() || m_map.steps.empty())
        return {-1, -1};
    const int row = int(std::int64_t(point.y() - area.top()) * std::int64_t(m_map.ranks.size()) / area.height());
    const int column = int(std::int64_t(point.x() - area.left()) * std::int64_t(m_map.steps.size()) / area.width());
    return {std::min(row, int(m_map.ranks.size()) - 1), std::min(column, int(m_map.steps.size()) - 1)};
}

void WaitHeatMap::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    const QRect area = cellArea();
    if (m_image.isNull()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, m_map.ranks.empty() ? tr("No job open") : tr("Nobody waited"));
        return;
    }
    painter.drawImage(area, m_image);
    painter.setPen(palette().color(QPalette::Text));
    const auto rankLabel = [&](std::size_t row, int y) {
        painter.drawText(QRect(0, y - 8, kAxisWidth - 4, 16), Qt::AlignRight | Qt::AlignVCenter,
                         tr("rank %1").arg(m_map.ranks[row]));
    };
    rankLabel(0, area.top() + 6);
    rankLabel(m_map.ranks.size() - 1, area.bottom() - 6);
    const auto stepLabel = [&](std::size_t column, Qt::Alignment align) {
        painter.drawText(QRect(area.left(), area.bottom() + 1, area.width(), kAxisHeight), align | Qt::AlignVCenter,
                         tr("step %1").arg(m_map.steps[column]));
    };
    stepLabel(0, Qt::AlignLeft);
    stepLabel(m_map.steps.size() - 1, Qt::AlignRight);
}

void WaitHeatMap::mouseMoveEvent(QMouseEvent* event)
{
    const auto [row, column] = cellAt(event->position().toPoint());
    if (row < 0) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("rank %1, step %2: caused %3 of waiting")
                           .arg(m_map.ranks[std::size_t(row)])
                           .arg(m_map.steps[std::size_t(column)])
                           .arg(statsDuration(m_map.at(std::size_t(row), std::size_t(column)))),
                       this);
}

void WaitHeatMap::mousePressEvent(QMouseEvent* event)
{
    const auto [row, column] = cellAt(event->position().toPoint());
    if (row >= 0)
        Q_EMIT rankActivated(m_map.ranks[std::size_t(row)]);
}

} // namespace ks
