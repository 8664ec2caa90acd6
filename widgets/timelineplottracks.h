#pragma once
// Counter tracks (the [memory] curves and the trace's own counters) and the GPU metric
// tracks inside each GPU's group (GPU Utilization, Est. SM Efficiency, Est. Achieved
// Occupancy on a 0–100 % scale, like Perfetto's counter tracks and Nsight's GPU metrics
// rows) of one trace: their plots, their label scales and the value under the cursor.
// The renderer paints the rest of the tracks and calls on this for these rows.
#include "core/timeline/timescale.h"
#include "core/timeline/tracklayout.h"
#include "widgets/timelinechrome.h"
#include "widgets/timelinehit.h"

#include <QFont>
#include <QString>

#include <memory>
#include <vector>

class QPainter;

namespace ks {

namespace gpu {
struct GpuReport;
class GpuMetricIndex;
struct MetricSeries;
} // namespace gpu

class TimelinePlotTracks {
public:
    static constexpr int kPixelsPerMetricBucket = 3;

    // Finds each counter's peak, which scales its plot.
    void setTrace(std::shared_ptr<const Trace> trace);
    // GPU metric tracks plot this report, by device index (it may be an older snapshot's
    // of a live trace); null: none.
    void setGpuReport(std::shared_ptr<const gpu::GpuReport> report);
    // The metric index of a GPU process of the trace, or null.
    const gpu::GpuMetricIndex* gpuMetricIndex(std::uint32_t process) const;
    // The buckets a metric track shows over the view: one per kPixelsPerMetricBucket pixels.
    static gpu::MetricSeries metricSeries(const gpu::GpuMetricIndex& index, const TimeScale& scale, int timeWidth);

    // The plots, in the time area [timeLeft, timeLeft + timeWidth) of the viewport.
    void paintCounter(QPainter& p, const TimeScale& scale, int timeLeft, int timeWidth, const LayoutItem& item,
                      int y) const;
    void paintGpuMetric(QPainter& p, const TimeScale& scale, int timeLeft, int timeWidth, const LayoutItem& item, int y,
                        const TimelineChrome& chrome) const;
    // The labels, in the label column [0, labelWidth).
    void paintGpuMetricLabel(QPainter& p, const LayoutItem& item, int y, int labelWidth, const QFont& font,
                             const TimelineChrome& chrome) const;
    // A counter track's y-scale against the time area (its maximum at the top, 0 at the
    // bottom; bytes in KB/MB/GB for the [memory] curves); returns the width it took.
    int paintCounterScale(QPainter& p, const LayoutItem& item, int y, int labelWidth, const QFont& font,
                          const TimelineChrome& chrome) const;
    // The value of a Counter or Metric hit at time t (hover text); empty for other hits.
    QString readout(const TimelineHit& hit, TimeNs t, const TimeScale& scale, int timeWidth) const;

private:
    std::shared_ptr<const Trace> m_trace;
    std::shared_ptr<const gpu::GpuReport> m_gpuReport;
    std::vector<double> m_counterMax; // per counter series, for scaling the plots
    std::vector<std::size_t> m_counterPeak; // per counter series, the sample of its maximum
};

} // namespace ks
