#include "widgets/gpuviews.h"

#include "core/analysis/jobview.h"
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
{
    connect(timeline, &TimelineWidget::traceChanged, this, &GpuViews::analyze);
    connect(timeline, &TimelineWidget::stepRulesChanged, this, &GpuViews::reanalyzeMember);
    connect(timeline, &TimelineWidget::visibleRangeChanged, this, &GpuViews::followTimeline);
    connect(timeline, &TimelineWidget::rangeSelected, this, &GpuViews::followTimeline);
    connect(timeline, &TimelineWidget::rangeCleared, this, &GpuViews::followTimeline);
    // The summary speaks in its member's time and slices.
    connect(m_summary, &GpuSummaryPanel::stepActivated, this, [this](TimeNs start, TimeNs end) {
        if (m_timeline)
            m_timeline->setVisibleRange(m_timeline->toPrimaryTime(m_summaryMember, start),
                                        m_timeline->toPrimaryTime(m_summaryMember, end));
    });
    connect(m_summary, &GpuSummaryPanel::stepSelected, this, [this](SliceId step) {
        if (m_timeline)
            m_timeline->revealTraceSlice({m_summaryMember, step});
    });
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

std::shared_ptr<const gpu::GpuReport> GpuViews::reportOf(std::uint32_t member) const
{
    return member < m_reports.size() ? m_reports[member] : nullptr;
}

JobTracker* GpuViews::jobsFor(std::uint32_t member)
{
    while (m_jobs.size() <= member)
        m_jobs.push_back(new JobTracker(this, sharedAnalysisPool()));
    return m_jobs[member];
}

void GpuViews::analyze(std::shared_ptr<const Trace> trace)
{
    const bool newerSnapshot = m_timeline && m_timeline->showsNewerSnapshot();
    const std::uint32_t count = trace && m_timeline ? m_timeline->traceCount() : 0;
    for (std::uint32_t i = newerSnapshot ? 1 : 0; i < m_jobs.size(); ++i)
        m_jobs[i]->cancel(); // newer traces supersede the reports still being computed
    m_reports.assign(count, nullptr);
    m_failed.assign(count, false);
    m_summaryMember = 0;
    if (!trace) {
        if (m_timeline)
            m_timeline->setGpuReport(nullptr);
        if (m_overlay)
            m_overlay->setReport(nullptr);
        showSummary();
        return;
    }
    if (m_summary)
        m_summary->setAnalysing();
    for (std::uint32_t i = 0; i < count; ++i) {
        bool shared = false; // a merged file's ranks share its Trace, hence one report
        for (std::uint32_t j = 0; j < i && !shared; ++j)
            shared = m_timeline->traceAt(j) == m_timeline->traceAt(i);
        if (!shared)
            analyzeMember(i);
    }
}

void GpuViews::analyzeMember(std::uint32_t member)
{
    std::shared_ptr<const Trace> trace = m_timeline->traceAt(member);
    jobsFor(member)->start(
        JobTracker::letFinishIf(m_timeline->showsNewerSnapshot()),
        [trace = std::move(trace), rules = m_timeline->stepRules(member)] {
            return gpu::makeGpuReport(facts::sharedTraceFacts(trace, rules));
        },
        [this, member](const std::shared_ptr<const gpu::GpuReport>& report) { apply(member, report); },
        [this, member](const QString& error) {
            qWarning().noquote() << "GPU analysis failed:" << error;
            apply(member, nullptr);
        });
}

void GpuViews::reanalyzeMember(std::uint32_t member)
{
    if (!m_timeline || member >= m_reports.size())
        return;
    const std::shared_ptr<const Trace> trace = m_timeline->traceAt(member);
    bool summaryWaits = false;
    for (std::uint32_t i = 0; i < m_reports.size(); ++i) {
        if (m_timeline->traceAt(i) != trace)
            continue;
        if (i < member)
            return; // groups of one file share a report, computed for the first of them
        m_reports[i] = nullptr;
        m_failed[i] = false;
        summaryWaits = summaryWaits || i == m_summaryMember;
    }
    if (summaryWaits && m_summary)
        m_summary->setAnalysing();
    analyzeMember(member);
}

void GpuViews::apply(std::uint32_t member, const std::shared_ptr<const gpu::GpuReport>& report)
{
    if (!m_overlay || !m_summary || !m_timeline)
        return;
    const std::shared_ptr<const Trace> trace = m_timeline->traceAt(member);
    bool summaryGotIt = false;
    for (std::uint32_t i = 0; i < m_reports.size(); ++i) {
        if (m_timeline->traceAt(i) != trace)
            continue;
        m_reports[i] = report;
        m_failed[i] = !report;
        summaryGotIt = summaryGotIt || i == m_summaryMember;
    }
    if (report)
        m_timeline->setGpuReport(report);
    if (member == 0) { // the overlay block is drawn on the primary trace's time
        m_overlay->setReport(report);
        m_overlay->setVisible(m_overlayBlock && report && !report->analysis.gpus.empty());
    }
    if (summaryGotIt)
        showSummary();
}

void GpuViews::setSummaryMember(std::uint32_t member)
{
    if (member == m_summaryMember || member >= m_reports.size())
        return;
    m_summaryMember = member;
    showSummary();
}

void GpuViews::showSummary()
{
    if (!m_summary)
        return;
    const std::shared_ptr<const gpu::GpuReport> report = reportOf(m_summaryMember);
    if (!report && m_summaryMember < m_failed.size() && !m_failed[m_summaryMember]) {
        m_summary->setAnalysing(); // its job is still running
        return;
    }
    const auto shown = m_timeline ? m_timeline->traceAt(m_summaryMember) : nullptr;
    m_summary->setNoGpuMessage(
        shown && analysis::isSummaryRows(*shown)
            ? tr("These ranks are drawn from their summaries, which keep no GPU metrics: open them in full from "
                 "the Job dock.")
            : tr("No GPU activity in this trace."));
    m_summary->setReport(report);
    followTimeline();
    Q_EMIT reportReady(report);
}

void GpuViews::setOverlayBlockShown(bool shown)
{
    m_overlayBlock = shown;
    if (m_timeline)
        m_timeline->setGpuMetricTracksShown(!shown);
    const std::shared_ptr<const gpu::GpuReport> primary = reportOf(0);
    if (m_overlay)
        m_overlay->setVisible(shown && primary && !primary->analysis.gpus.empty());
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
    m_summary->setVisibleRange(m_timeline->toTraceTime(m_summaryMember, focus.start),
                               m_timeline->toTraceTime(m_summaryMember, focus.end));
}

} // namespace ks
