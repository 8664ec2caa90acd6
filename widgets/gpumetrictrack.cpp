#include "widgets/gpumetrictrack.h"
#include "widgets/plotexport.h"
#include "widgets/plotpalette.h"

#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace ks {

GpuMetricTrack::GpuMetricTrack(GpuMetric metric, QWidget* parent)
    : QCustomPlot(parent)
    , m_metric(metric)
{
    addPlotExportMenu(this, QStringLiteral("gpu-metric")); // PNG, SVG, PDF (issue 41)
    setFixedHeight(44);
    setMouseTracking(true);
    setNoAntialiasingOnDrag(true);
    axisRect()->setAutoMargins(QCP::msNone);
    axisRect()->setMargins(QMargins(0, 2, 0, 2));
    xAxis->setVisible(false);
    yAxis->setVisible(false);
    yAxis->setRange(-3, 103); // keeps the 0 % and 100 % lines off the plot's edges
    m_graph = addGraph();
    m_graph->setLineStyle(QCPGraph::lsStepLeft);
    // Thin pen, no translucent fill: QCustomPlot's own performance advice.
    m_graph->setAdaptiveSampling(false); // buckets are already about one per 3 pixels
    m_graph->setAntialiased(false);
    m_label = new QCPItemText(this);
    m_label->setClipToAxisRect(false);
    m_label->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_label->position->setCoords(0, 0);
    m_label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_label->setText(metricTitle(metric));
    followPalette(*this, [this](const QPalette& palette) {
        m_graph->setPen(QPen(palette.color(QPalette::Highlight), 1));
        m_label->setColor(palette.color(QPalette::WindowText));
    });
}

QString GpuMetricTrack::metricTitle(GpuMetric metric)
{
    switch (metric) {
    case GpuMetric::Utilization: return tr("GPU Utilization");
    case GpuMetric::SmEfficiency: return tr("Est. SM Efficiency");
    case GpuMetric::AchievedOccupancy: return tr("Est. Achieved Occupancy");
    }
    return {};
}

void GpuMetricTrack::setReport(std::shared_ptr<const gpu::GpuReport> report, int device)
{
    m_report = std::move(report);
    m_index = m_report ? m_report->analysis.gpu(device) : nullptr;
    m_origin = m_report ? m_report->trace->startTime() : 0;
    m_label->setText(tr("GPU %1 · %2").arg(device).arg(metricTitle(m_metric)));
    recompute();
}

void GpuMetricTrack::setTimeAreaMargins(int left, int right)
{
    axisRect()->setMargins(QMargins(left, 2, right, 2));
    recompute();
}

void GpuMetricTrack::setVisibleRange(TimeNs start, TimeNs end)
{
    if (start == m_start && end == m_end)
        return;
    m_start = start;
    m_end = end;
    recompute();
}

void GpuMetricTrack::resizeEvent(QResizeEvent* event)
{
    QCustomPlot::resizeEvent(event);
    recompute(); // the bucket count follows the width
}

double gpuMetricPercent(const gpu::MetricSeries& series, GpuMetric metric, std::size_t bucket)
{
    switch (metric) {
    case GpuMetric::Utilization: return 100.0 * series.utilization[bucket];
    case GpuMetric::SmEfficiency: return 100.0 * series.smEfficiency[bucket];
    case GpuMetric::AchievedOccupancy: return series.achievedOccupancy[bucket];
    }
    return std::nan("");
}

void GpuMetricTrack::recompute()
{
    if (!m_index || m_end <= m_start) {
        m_series = {};
        m_graph->data()->clear();
        replot(rpQueuedReplot);
        return;
    }
    // The axis rect's width is known only after a layout pass; before that use ours.
    const int margins = axisRect()->margins().left() + axisRect()->margins().right();
    const int plotWidth = std::max(1, width() - margins);
    const std::size_t buckets = std::size_t(std::max(1, plotWidth / kPixelsPerBucket));
    m_series = m_index->series(m_start, m_end, buckets);

    QVector<double> keys(int(m_series.size()) + 1), values(int(m_series.size()) + 1);
    for (std::size_t i = 0; i < m_series.size(); ++i) {
        keys[int(i)] = double(m_series.bucketStart[i] - m_origin);
        values[int(i)] = gpuMetricPercent(m_series, m_metric, i);
    }
    // Repeat the last value at the range end so the final step is drawn to the edge.
    keys.back() = double(m_series.bucketStart.back() - m_origin);
    values.back() = m_series.size() ? values[int(m_series.size()) - 1] : 0.0;
    m_graph->setData(keys, values, true);
    xAxis->setRange(double(m_start - m_origin), double(m_end - m_origin));
    replot(rpQueuedReplot);
}

double GpuMetricTrack::valueAt(TimeNs t) const
{
    const auto& b = m_series.bucketStart;
    if (m_series.size() == 0 || t < b.front() || t >= b.back())
        return std::nan("");
    const std::size_t i = std::size_t(std::upper_bound(b.begin(), b.end(), t) - b.begin()) - 1;
    return gpuMetricPercent(m_series, m_metric, i);
}

void GpuMetricTrack::mouseMoveEvent(QMouseEvent* event)
{
    QCustomPlot::mouseMoveEvent(event);
    if (m_series.size() == 0)
        return;
    const TimeNs t = m_origin + TimeNs(std::llround(xAxis->pixelToCoord(event->position().x())));
    const double v = valueAt(t);
    const QString value = std::isnan(v) ? tr("no data") : QStringLiteral("%1 %").arg(v, 0, 'f', 2);
    const QString bucket = QString::fromStdString(formatDuration(m_series.bucketWidth));
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("%1: %2\n(bucket %3)").arg(metricTitle(m_metric), value, bucket), this);
}

} // namespace ks
