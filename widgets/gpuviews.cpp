#include "widgets/gpuviews.h"

#include "widgets/gpuoverlaypanel.h"
#include "widgets/gpusummarypanel.h"
#include "widgets/timelinewidget.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

namespace ks {

GpuViews::GpuViews(TimelineWidget* timeline, QObject* parent)
    : QObject(parent)
    , m_timeline(timeline)
    , m_overlay(new GpuOverlayPanel)
    , m_summary(new GpuSummaryPanel)
{
    connect(timeline, &TimelineWidget::traceChanged, this, &GpuViews::analyze);
    connect(timeline, &TimelineWidget::visibleRangeChanged, this, &GpuViews::followTimeline);
    connect(m_summary, &GpuSummaryPanel::stepActivated, timeline, &TimelineWidget::setVisibleRange);
    m_overlay->hide(); // until a trace with GPU kernels is shown
}

void GpuViews::analyze(std::shared_ptr<const Trace> trace)
{
    const quint64 generation = ++m_generation;
    if (!trace) {
        apply(nullptr, generation);
        return;
    }
    auto* watcher = new QFutureWatcher<std::shared_ptr<const gpu::GpuReport>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        apply(watcher->result(), generation);
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([trace] { return gpu::makeGpuReport(trace); }));
}

void GpuViews::apply(std::shared_ptr<const gpu::GpuReport> report, quint64 generation)
{
    if (generation != m_generation)
        return; // a newer trace was shown meanwhile
    m_overlay->setReport(report);
    m_summary->setReport(report);
    m_overlay->setVisible(report && !report->analysis.gpus.empty());
    followTimeline();
    Q_EMIT reportReady(report);
}

void GpuViews::followTimeline()
{
    if (!m_timeline)
        return;
    const TimeScale& scale = m_timeline->timeScale();
    const int timeArea = m_timeline->timeAreaWidth();
    const TimeNs start = scale.viewStart(), end = scale.viewEnd(timeArea);
    // The overlay sits under the timeline at the same x: match its time area exactly.
    const int left = m_timeline->viewport()->geometry().x() + int(std::lround(m_timeline->viewportXOf(start)));
    m_overlay->setTimeAreaMargins(left, std::max(0, m_timeline->width() - left - timeArea));
    m_overlay->setVisibleRange(start, end);
    m_summary->setVisibleRange(start, end);
}

} // namespace ks
