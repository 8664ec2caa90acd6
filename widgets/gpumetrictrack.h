#pragma once
// One GPU metric of one GPU as a time-matched track under the timeline: a QCustomPlot step
// line over exactly the timeline's visible range, recomputed for every zoom or pan at about
// one bucket per kPixelsPerBucket pixels (cheap: see gpu::GpuMetricIndex). The value under
// the cursor shows in a tooltip. GUI thread only; the report is immutable and shared.
#include "core/gpu/gpureport.h"

#include <qcustomplot.h>

#include <memory>

namespace ks {

enum class GpuMetric { Utilization, SmEfficiency, AchievedOccupancy };
inline constexpr int kGpuMetricCount = 3;

// A bucket's value of the metric in percent (NaN where the metric has no data).
double gpuMetricPercent(const gpu::MetricSeries& series, GpuMetric metric, std::size_t bucket);

class GpuMetricTrack : public QCustomPlot {
    Q_OBJECT
public:
    static constexpr int kPixelsPerBucket = 3;

    GpuMetricTrack(GpuMetric metric, QWidget* parent = nullptr);

    static QString metricTitle(GpuMetric metric);
    GpuMetric metric() const { return m_metric; }

    void setReport(std::shared_ptr<const gpu::GpuReport> report, int device);
    // Pixels left of and right of the plotted time area, so it lines up with the timeline's.
    void setTimeAreaMargins(int left, int right);

    // What the track shows (percent, NaN where the metric has no data) at time t.
    double valueAt(TimeNs t) const;
    const gpu::MetricSeries& series() const { return m_series; }

public Q_SLOTS:
    void setVisibleRange(ks::TimeNs start, ks::TimeNs end);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    void recompute();

    GpuMetric m_metric;
    std::shared_ptr<const gpu::GpuReport> m_report;
    const gpu::GpuMetricIndex* m_index = nullptr;
    TimeNs m_origin = 0; // x = time − origin, so doubles keep ns precision
    TimeNs m_start = 0, m_end = 0;
    gpu::MetricSeries m_series;
    QCPGraph* m_graph = nullptr;
    QCPItemText* m_label = nullptr;
};

} // namespace ks
