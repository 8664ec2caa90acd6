#include "widgets/gpuviews.h"

#include "core/facts/tracefacts.h"

#include "widgets/gpuoverlaypanel.h"
#include "widgets/gpusummarypanel.h"
#include "widgets/jobtracker.h"
#include "widgets/timelinewidget.h"

#include <QDebug>

#include <algorithm>
#include <cmath>
#include <utility>

namespace ks {

GpuViews::GpuViews(TimelineWidget* timeline, QObject* parent)
    : QObject(parent)
    , m_timeline(timeline)
    , m_overlay(new GpuOverlayPanel)
    , m_summary(new GpuSummaryPanel)
    , m_jobs(new JobTracker(this, sharedAnalysisPool()))
{
    connect(timeline, &TimelineWidget::traceChanged, this, &GpuViews::analyze);
    connect(timeline, &TimelineWidget::stepRulesChanged, this, [this] {
        if (m_timeline->trace())
            analyze(m_timeline->trace());
    });
    connect(timeline, &TimelineWidget::visibleRangeChanged, this, &GpuViews::followTimeline);
    connect(timeline, &TimelineWidget::rangeSelected, this, &GpuViews::followTimeline);
    connect(timeline, &TimelineWidget::rangeCleared, this, &GpuViews::followTimeline);
    connect(m_summary, &GpuSummaryPanel::stepActivated, timeline, &TimelineWidget::setVisibleRange);
    connect(m_summary, &GpuSummaryPanel::stepSelected, timeline, &TimelineWidget::revealSlice);
    m_overlay->hide(); // until a trace with GPU kernels is shown
}

GpuViews::~GpuViews()
{
    // Placed panels belong to their parents; those never placed are ours.
    if (m_overlay && !m_overlay->parent())
        delete m_overlay.data();
    if (m_summary && !m_summary->parent())
        delete m_summary.data();
}

void GpuViews::analyze(std::shared_ptr<const Trace> trace)
{
    if (!trace) {
        m_jobs->cancel(); // a newer trace supersedes the report still being computed
        apply(nullptr);
        return;
    }
    if (m_summary)
        m_summary->setAnalysing();
    m_jobs->start(
        JobTracker::letFinishIf(m_timeline && m_timeline->showsNewerSnapshot()),
        [trace = std::move(trace), rules = m_timeline ? m_timeline->stepRules() : facts::StepRules{}] {
            return gpu::makeGpuReport(facts::sharedTraceFacts(trace, rules));
        },
        [this](const std::shared_ptr<const gpu::GpuReport>& report) { apply(report); },
        [this](const QString& error) {
            qWarning().noquote() << "GPU analysis failed:" << error;
            apply(nullptr);
        });
}

void GpuViews::apply(const std::shared_ptr<const gpu::GpuReport>& report)
{
    if (!m_overlay || !m_summary)
        return;
    m_report = report;
    if (m_timeline)
        m_timeline->setGpuReport(report);
    m_overlay->setReport(report);
    m_summary->setReport(report);
    m_overlay->setVisible(m_overlayBlock && report && !report->analysis.gpus.empty());
    followTimeline();
    Q_EMIT reportReady(report);
}

void GpuViews::setOverlayBlockShown(bool shown)
{
    m_overlayBlock = shown;
    if (m_timeline)
        m_timeline->setGpuMetricTracksShown(!shown);
    if (m_overlay)
        m_overlay->setVisible(shown && m_report && !m_report->analysis.gpus.empty());
}

void GpuViews::followTimeline()
{
    if (!m_timeline || !m_overlay || !m_summary)
        return;
    const TimeScale& scale = m_timeline->timeScale();
    const int timeArea = m_timeline->timeAreaWidth();
    const TimeNs start = scale.viewStart(), end = scale.viewEnd(timeArea);
    // The overlay sits under the timeline at the same x: match its time area exactly.
    const int left = m_timeline->viewport()->geometry().x() + int(std::lround(m_timeline->viewportXOf(start)));
    m_overlay->setTimeAreaMargins(left, std::max(0, m_timeline->width() - left - timeArea));
    m_overlay->setVisibleRange(start, end);
    // The "(visible)" columns follow the selected range when there is one.
    const TimeExtent focus = m_timeline->focusRange();
    m_summary->setVisibleRange(focus.start, focus.end);
}

} // namespace ks
