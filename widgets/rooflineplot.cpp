#include "widgets/rooflineplot.h"
#include "widgets/plotexport.h"
#include "widgets/plotpalette.h"

#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

QColor roofColor(analysis::PeakKind kind)
{
    static const QColor colors[analysis::kPeakKindCount] = {QColor(0x81, 0x72, 0xb3), QColor(0x4c, 0x72, 0xb0),
                                                            QColor(0x55, 0xa8, 0x68), QColor(0xdd, 0x84, 0x52),
                                                            QColor(0xc4, 0x4e, 0x52)};
    return colors[std::size_t(kind)];
}

QString kindName(analysis::PeakKind kind)
{
    return QString::fromLatin1(analysis::peakKindName(kind).data(), qsizetype(analysis::peakKindName(kind).size()));
}

constexpr double kMinMarker = 5.0, kMaxMarker = 26.0;

} // namespace

RooflinePlot::RooflinePlot(QWidget* parent)
    : QCustomPlot(parent)
{
    addPlotExportMenu(this, QStringLiteral("roofline")); // PNG, SVG, PDF (issue 41)
    followPalette(*this);
    setMinimumSize(fontMetrics().averageCharWidth() * 40, fontMetrics().height() * 10);
    for (QCPAxis* axis : {xAxis, yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        axis->setNumberFormat(QStringLiteral("gb"));
    }
    xAxis->setLabel(tr("FLOPs per byte"));
    yAxis->setLabel(tr("TFLOP/s"));
    legend->setVisible(true);
    legend->setFont(font());
    placeLegendBeside(*this); // in a short dock, inside it covered the roofs' ridges
    setMouseTracking(true);
    connect(this, &QCustomPlot::afterReplot, this, [this] {
        m_pixelCache.clear();
        for (const auto& p : m_roofline.points)
            m_pixelCache.emplace_back(xAxis->coordToPixel(p.flopsPerByte), yAxis->coordToPixel(p.tflopsPerS));
    });
    connect(this, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        const int point = pointAt(event->position());
        if (point < 0)
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), pointText(point), this);
    });
    connect(this, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        if (const int point = pointAt(event->position()); point >= 0)
            Q_EMIT pointClicked(point);
    });
}

void RooflinePlot::setRoofline(analysis::Roofline roofline)
{
    m_roofline = std::move(roofline);
    rebuild();
}

int RooflinePlot::pointAt(const QPointF& pos) const
{
    int best = -1;
    double bestDistance = 0;
    for (std::size_t i = 0; i < m_pixelCache.size(); ++i) {
        const double d = std::hypot(m_pixelCache[i].x() - pos.x(), m_pixelCache[i].y() - pos.y());
        if (d <= kMaxMarker / 2 + 2 && (best < 0 || d < bestDistance)) {
            best = int(i);
            bestDistance = d;
        }
    }
    return best;
}

QString RooflinePlot::pointText(int point) const
{
    const analysis::RooflinePoint& p = m_roofline.points[std::size_t(point)];
    QString text = QString::fromStdString(p.name);
    if (!p.shapes.empty())
        text += QLatin1Char('\n') + QString::fromStdString(p.shapes);
    text += tr("\n%n call(s), %1 ms on the GPU", nullptr, int(p.calls)).arg(p.deviceNs * 1e-6, 0, 'f', 3);
    text += tr("\n%1 GFLOPs, %2 MB, %3 FLOPs/byte")
                .arg(p.flops * 1e-9, 0, 'f', 3)
                .arg(p.bytes * 1e-6, 0, 'f', 2)
                .arg(p.flopsPerByte, 0, 'f', 1);
    text += tr("\n%1 TFLOP/s").arg(p.tflopsPerS, 0, 'f', 2);
    if (p.peakFraction && p.roof)
        text += tr(", %1 % of the %2 peak").arg(100.0 * *p.peakFraction, 0, 'f', 1).arg(kindName(*p.roof));
    if (p.bound != analysis::Bound::Unknown)
        text += p.bound == analysis::Bound::Compute ? tr(", compute-bound") : tr(", memory-bound");
    text += tr("\nClick: select its %n kernel(s) on the timeline", nullptr, int(p.kernels.size()));
    return text;
}

void RooflinePlot::rebuild()
{
    clearGraphs();
    const auto& points = m_roofline.points;
    double minX = 1e300, maxX = 0, minY = 1e300, maxY = 0, maxNs = 0;
    for (const auto& p : points) {
        minX = std::min(minX, p.flopsPerByte);
        maxX = std::max(maxX, p.flopsPerByte);
        minY = std::min(minY, p.tflopsPerS);
        maxY = std::max(maxY, p.tflopsPerS);
        maxNs = std::max(maxNs, p.deviceNs);
    }
    const auto bandwidth = m_roofline.peaks.peakTBps();
    for (std::size_t k = 0; k < analysis::kPeakKindCount; ++k) {
        if (const auto peak = m_roofline.peaks.peakTflops(analysis::PeakKind(k)))
            maxY = std::max(maxY, *peak);
    }
    if (points.empty()) {
        minX = 0.1, maxX = 1000, minY = 0.01;
        maxY = std::max(maxY, 100.0);
    }
    // Wide enough on the right for every roof's ridge (where it turns flat): a plot spanning
    // only the points would show slanted lines without the knees that tell memory from compute.
    double lastRidge = 0;
    for (std::size_t k = 0; bandwidth && k < analysis::kPeakKindCount; ++k) {
        if (const auto peak = m_roofline.peaks.peakTflops(analysis::PeakKind(k)))
            lastRidge = std::max(lastRidge, *peak / *bandwidth);
    }
    const double x0 = std::max(1e-3, minX / 4), x1 = std::max({maxX * 4, x0 * 10, lastRidge * 2});
    // Roofs: flat at each precision's peak, slanting down at the memory bandwidth (TB/s is
    // TFLOP/s per FLOP/byte) left of its ridge.
    for (std::size_t k = 0; k < analysis::kPeakKindCount; ++k) {
        const auto kind = analysis::PeakKind(k);
        const auto peak = m_roofline.peaks.peakTflops(kind);
        if (!peak)
            continue;
        QCPGraph* roof = addGraph();
        roof->setName(tr("%1 roof (%2 TFLOP/s)").arg(kindName(kind)).arg(*peak));
        roof->setPen(QPen(roofColor(kind), 1.5, Qt::DashLine));
        QVector<double> xs, ys;
        if (bandwidth && *peak / *bandwidth > x0) {
            xs << x0 << *peak / *bandwidth;
            ys << x0 * *bandwidth << *peak;
        } else {
            xs << x0;
            ys << *peak;
        }
        xs << x1;
        ys << *peak;
        roof->setData(xs, ys, true);
        minY = std::min(minY, ys.front());
    }
    // Points: one graph each, so that each has its own marker size (area ~ device time).
    for (const auto& p : points) {
        QCPGraph* g = addGraph();
        g->removeFromLegend();
        g->setLineStyle(QCPGraph::lsNone);
        const double size = kMinMarker + (kMaxMarker - kMinMarker) * std::sqrt(maxNs > 0 ? p.deviceNs / maxNs : 0);
        QColor color = p.roof ? roofColor(*p.roof) : QColor(Qt::gray);
        QColor fill = color;
        fill.setAlpha(110);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, fill, size));
        g->setData({p.flopsPerByte}, {p.tflopsPerS}, true);
    }
    xAxis->setRange(x0, x1);
    yAxis->setRange(std::max(1e-4, minY / 4), maxY * 2);
    replot();
}

} // namespace ks
