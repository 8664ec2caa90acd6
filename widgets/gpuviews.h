#pragma once
// Wires the GPU overlays and the GPU summary to a timeline: when the timeline gets a trace,
// the GPU report is computed on a worker thread (newer traces supersede older requests)
// and handed to the timeline's GPU metric tracks (or, as an option, the overlay block);
// with several traces (ranks, BASE and NEW) each gets its own report, one job each, so that
// every member has its GPU tracks; the summary shows the member setSummaryMember() names;
// the overlays and the summary's range columns follow visibleRangeChanged(), the overlays
// keep their time area under the timeline's, and a clicked step zooms the timeline.
// The host places overlay() (directly under the timeline, same width) and summary() (a
// dock), which then own them; panels never placed are deleted with this object. GUI
// thread only.
#include "core/gpu/gpureport.h"

#include <QObject>
#include <QPointer>

#include <vector>

namespace ks {

class GpuOverlayPanel;
class GpuSummaryPanel;
class JobTracker;
class TimelineWidget;

class GpuViews : public QObject {
    Q_OBJECT
public:
    GpuViews(TimelineWidget* timeline, QObject* parent = nullptr);
    ~GpuViews() override;

    GpuOverlayPanel* overlay() const { return m_overlay; }
    GpuSummaryPanel* summary() const { return m_summary; }
    // The metrics as the old block under the timeline instead of tracks in the GPU groups.
    bool showsOverlayBlock() const { return m_overlayBlock; }
    // The timeline trace whose report the summary shows (0: the primary one).
    std::uint32_t summaryMember() const { return m_summaryMember; }
    // A member's report once computed, else null.
    std::shared_ptr<const gpu::GpuReport> reportOf(std::uint32_t member) const;

public Q_SLOTS:
    void setOverlayBlockShown(bool shown);
    void setSummaryMember(std::uint32_t member);

Q_SIGNALS:
    // The summary's report changed (the summary member's arrived, or another member's is shown).
    void reportReady(std::shared_ptr<const ks::gpu::GpuReport> report);

private:
    void analyze(std::shared_ptr<const Trace> trace);
    void analyzeMember(std::uint32_t member);
    // Its steps changed: its report (and that of the groups sharing its file) again.
    void reanalyzeMember(std::uint32_t member);
    void apply(std::uint32_t member, const std::shared_ptr<const gpu::GpuReport>& report);
    void showSummary();
    void followTimeline();
    JobTracker* jobsFor(std::uint32_t member);

    QPointer<TimelineWidget> m_timeline;
    QPointer<GpuOverlayPanel> m_overlay;
    QPointer<GpuSummaryPanel> m_summary;
    std::vector<JobTracker*> m_jobs; // one per member, all on the shared analysis pool
    // Per timeline trace; members sharing a Trace (a merged file's ranks) share one report.
    std::vector<std::shared_ptr<const gpu::GpuReport>> m_reports;
    std::vector<bool> m_failed; // per timeline trace: its analysis failed (no report will come)
    std::uint32_t m_summaryMember = 0;
    bool m_overlayBlock = false;
};

} // namespace ks
