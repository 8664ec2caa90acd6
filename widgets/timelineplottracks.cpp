#include "widgets/timelineplottracks.h"

#include "core/gpu/gpureport.h"
#include "core/timeline/drawlist.h"
#include "widgets/gpumetrictrack.h"

#include <QCoreApplication>
#include <QFontMetrics>
#include <QLocale>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <optional>

namespace ks {

namespace {

const QColor kCounterColor(120, 160, 200);
const QColor kPeakColor(200, 60, 40);
const QColor kMetricColors[kGpuMetricCount] = {QColor(70, 150, 90), QColor(60, 120, 190), QColor(150, 90, 170)};

QString tr(const char* text) { return QCoreApplication::translate("ks::TimelineRenderer", text); }

QString durationText(TimeNs ns) { return QString::fromStdString(formatDuration(ns)); }

// The counter's sample in force at t, or none before its first sample.
std::optional<std::size_t> sampleAt(const CounterSeries& series, TimeNs t)
{
    const auto it = std::upper_bound(series.time.begin(), series.time.end(), t);
    if (it == series.time.begin())
        return std::nullopt;
    return std::size_t(it - series.time.begin() - 1);
}

// Bytes for the [memory] curves (the loader derives them from allocation events), else plain.
QString counterValueText(const CounterSeries& series, double value)
{
    if (series.derived)
        return QStringLiteral("%1 (%2 B)")
            .arg(QLocale().formattedDataSize(qint64(value)), QLocale().toString(qint64(value)));
    return QLocale().toString(value, 'g', 10);
}

} // namespace

void TimelinePlotTracks::setTrace(std::shared_ptr<const Trace> trace)
{
    m_trace = std::move(trace);
    m_counterMax.clear();
    m_counterPeak.clear();
    if (!m_trace)
        return;
    for (const CounterSeries& series : m_trace->counters()) {
        double maxAbs = 0;
        std::size_t peak = 0;
        for (std::size_t i = 0; i < series.value.size(); ++i) {
            if (std::abs(series.value[i]) > maxAbs) {
                maxAbs = std::abs(series.value[i]);
                peak = i;
            }
        }
        m_counterMax.push_back(maxAbs);
        m_counterPeak.push_back(peak);
    }
}

void TimelinePlotTracks::setGpuReport(std::shared_ptr<const gpu::GpuReport> report) { m_gpuReport = std::move(report); }

const gpu::GpuMetricIndex* TimelinePlotTracks::gpuMetricIndex(std::uint32_t process) const
{
    if (!m_gpuReport || !m_trace || process >= m_trace->processes().size())
        return nullptr;
    const Process& proc = m_trace->processes()[process];
    return proc.isDevice ? m_gpuReport->analysis.gpu(proc.deviceIndex) : nullptr;
}

gpu::MetricSeries TimelinePlotTracks::metricSeries(const gpu::GpuMetricIndex& index, const TimeScale& scale,
                                                   int timeWidth)
{
    const std::size_t buckets = std::size_t(std::max(1, timeWidth / kPixelsPerMetricBucket));
    return index.series(scale.viewStart(), scale.viewEnd(timeWidth), buckets);
}

void TimelinePlotTracks::paintCounter(QPainter& p, const TimeScale& scale, int timeLeft, int timeWidth,
                                      const LayoutItem& item, int y) const
{
    const std::uint32_t counter = item.index;
    const CounterSeries& series = m_trace->counters()[counter];
    const int height = item.height - 4;
    const double maxAbs = m_counterMax[counter] > 0 ? m_counterMax[counter] : 1.0;
    const int base = y + height + 2;
    // Opaque bars, one rectangle per run of columns with the same height: cheaper for the
    // raster engine than a translucent polygon.
    int runStart = 0, runTop = base;
    const auto flush = [&](int endColumn) {
        if (runTop < base && endColumn > runStart)
            p.fillRect(QRect(timeLeft + runStart, runTop, endColumn - runStart, base - runTop), kCounterColor);
    };
    // The value in force at the end of each pixel column (a step plot, sampled per pixel);
    // columns move forward, so each search gallops on from the previous one.
    auto it = std::upper_bound(series.time.begin(), series.time.end(), scale.viewStart());
    for (int c = 0; c < timeWidth; ++c) {
        const TimeNs t = scale.xToTime(c + 1.0);
        it = gallopingLowerBound(it, series.time.end(), t + 1); // first sample after t
        double value = 0;
        if (it != series.time.begin())
            value = series.value[static_cast<std::size_t>(it - series.time.begin() - 1)];
        const int top = base - static_cast<int>(std::lround(std::abs(value) / maxAbs * height));
        if (top != runTop) {
            flush(c);
            runStart = c;
            runTop = top;
        }
    }
    flush(timeWidth);
    // The peak: a marker at the sample of the maximum (memory tracks: the high-water mark).
    if (m_counterMax[counter] > 0) {
        const double x = scale.timeToX(series.time[m_counterPeak[counter]]);
        if (x >= 0 && x < timeWidth) {
            const int px = timeLeft + int(x);
            p.fillRect(QRect(px, y + 2, 1, height), kPeakColor);
            p.fillRect(QRect(px - 2, y + 1, 5, 3), kPeakColor);
        }
    }
}

void TimelinePlotTracks::paintGpuMetric(QPainter& p, const TimeScale& scale, int timeLeft, int timeWidth,
                                        const LayoutItem& item, int y, const TimelineChrome& chrome) const
{
    p.fillRect(QRect(timeLeft, y, timeWidth, item.height - 1), chrome.metricBackground);
    p.fillRect(QRect(timeLeft, y + item.height - 1, timeWidth, 1), chrome.separator);
    const gpu::GpuMetricIndex* index = gpuMetricIndex(item.group);
    if (!index || item.index >= std::uint32_t(kGpuMetricCount))
        return;
    const auto metric = GpuMetric(item.index);
    const gpu::MetricSeries series = metricSeries(*index, scale, timeWidth);
    const int plotHeight = item.height - 4;
    const int base = y + item.height - 2;
    const QColor& color = kMetricColors[item.index];
    for (std::size_t i = 0; i < series.size(); ++i) {
        const double value = gpuMetricPercent(series, metric, i);
        if (std::isnan(value) || value <= 0)
            continue;
        const int x0 = int(std::floor(scale.timeToX(series.bucketStart[i])));
        const int x1 = int(std::floor(scale.timeToX(series.bucketStart[i + 1])));
        const int h = std::max(1, int(std::lround(std::min(value, 100.0) / 100.0 * plotHeight)));
        p.fillRect(QRect(timeLeft + x0, base - h, std::max(1, x1 - x0), h), color);
    }
}

void TimelinePlotTracks::paintGpuMetricLabel(QPainter& p, const LayoutItem& item, int y, int labelWidth,
                                             const QFont& font, const TimelineChrome& chrome) const
{
    if (item.index >= std::uint32_t(kGpuMetricCount))
        return;
    // The fold arrow and title on the left, the scale (100 % top, 0 % bottom) against the
    // time area; a collapsed track is too thin for the scale.
    const QFontMetrics metrics(font);
    const int scaleWidth = item.collapsed ? 0 : metrics.horizontalAdvance(QStringLiteral("100 %")) + 6;
    p.fillRect(QRect(0, y + item.height - 1, labelWidth, 1), chrome.separator);
    p.setPen(chrome.text);
    const QString title = (item.collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ "))
        + GpuMetricTrack::metricTitle(GpuMetric(item.index));
    p.drawText(QRect(4, y, labelWidth - 8 - scaleWidth, item.height), Qt::AlignVCenter,
               metrics.elidedText(title, Qt::ElideRight, labelWidth - 8 - scaleWidth));
    if (item.collapsed)
        return;
    p.setPen(chrome.mutedText);
    const QRect scale(labelWidth - scaleWidth - 2, y, scaleWidth, item.height - 1);
    p.drawText(scale, Qt::AlignRight | Qt::AlignTop, QStringLiteral("100 %"));
    p.drawText(scale, Qt::AlignRight | Qt::AlignBottom, QStringLiteral("0 %"));
}

int TimelinePlotTracks::paintCounterScale(QPainter& p, const LayoutItem& item, int y, int labelWidth, const QFont& font,
                                          const TimelineChrome& chrome) const
{
    const std::uint32_t counter = item.index;
    if (item.collapsed || counter >= m_counterMax.size() || m_counterMax[counter] <= 0)
        return 0;
    const CounterSeries& series = m_trace->counters()[counter];
    const double top = m_counterMax[counter];
    const QString topText = series.derived ? QLocale().formattedDataSize(qint64(top), 1, QLocale::DataSizeSIFormat)
                                           : QLocale().toString(top, 'g', 4);
    const QFontMetrics metrics(font);
    const int width = metrics.horizontalAdvance(topText) + 6;
    if (item.height < 2 * metrics.height())
        return 0;
    p.setPen(chrome.mutedText);
    const QRect scale(labelWidth - width - 2, y, width, item.height - 1);
    p.drawText(scale, Qt::AlignRight | Qt::AlignTop, topText);
    p.drawText(scale, Qt::AlignRight | Qt::AlignBottom, QStringLiteral("0"));
    return width;
}

QString TimelinePlotTracks::readout(const TimelineHit& hit, TimeNs t, const TimeScale& scale, int timeWidth) const
{
    const TimeNs origin = m_trace ? m_trace->startTime() : 0;
    if (hit.kind == TimelineHit::Kind::Counter) {
        const CounterSeries& series = m_trace->counters()[hit.counter];
        const auto sample = sampleAt(series, t);
        const QString value = sample ? counterValueText(series, series.value[*sample]) : tr("no sample yet");
        QString text =
            QStringLiteral("<b>%1</b><br>%2<br>").arg(QString::fromStdString(series.name).toHtmlEscaped(), value);
        if (sample)
            text += tr("since %1").arg(durationText(series.time[*sample] - origin)) + QStringLiteral("<br>");
        return text
            + tr("max %1 at %2")
                  .arg(counterValueText(series, series.value[m_counterPeak[hit.counter]]),
                       durationText(series.time[m_counterPeak[hit.counter]] - origin));
    }
    if (hit.kind != TimelineHit::Kind::Metric)
        return {};
    const gpu::GpuMetricIndex* index = gpuMetricIndex(hit.process);
    if (!index || hit.counter >= std::uint32_t(kGpuMetricCount))
        return {};
    const gpu::MetricSeries series = metricSeries(*index, scale, timeWidth);
    const auto& b = series.bucketStart;
    if (series.size() == 0 || t < b.front() || t >= b.back())
        return {};
    const std::size_t i = std::size_t(std::upper_bound(b.begin(), b.end(), t) - b.begin()) - 1;
    const double value = gpuMetricPercent(series, GpuMetric(hit.counter), i);
    const QString valueText = std::isnan(value) ? tr("no data") : QStringLiteral("%1 %").arg(value, 0, 'f', 2);
    return QStringLiteral("<b>%1 · %2</b><br>%3<br>%4")
        .arg(QString::fromStdString(m_trace->processDisplayName(hit.process)).toHtmlEscaped(),
             GpuMetricTrack::metricTitle(GpuMetric(hit.counter)), valueText,
             tr("bucket %1 – %2").arg(durationText(b[i] - origin), durationText(b[i + 1] - origin)));
}

} // namespace ks
