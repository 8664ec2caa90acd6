#pragma once
// Wires the GPU overlays and the GPU summary to a timeline: when the timeline gets a trace,
// the GPU report is computed on a worker thread (newer traces supersede older requests)
// and handed to the timeline's GPU metric tracks (or, as an option, the overlay block);
// the overlays and the summary's range columns follow visibleRangeChanged(), the overlays
// keep their time area under the timeline's, and a clicked step zooms the timeline.
// The host places overlay() (directly under the timeline, same width) and summary() (a
// dock), which then own them; panels never placed are deleted with this object. GUI
// thread only.
#include "core/gpu/gpureport.h"

#include <QObject>
#include <QPointer>

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

public Q_SLOTS:
    void setOverlayBlockShown(bool shown);

Q_SIGNALS:
    void reportReady(std::shared_ptr<const ks::gpu::GpuReport> report);

private:
    void analyze(std::shared_ptr<const Trace> trace);
    void apply(const std::shared_ptr<const gpu::GpuReport>& report);
    void followTimeline();

    QPointer<TimelineWidget> m_timeline;
    QPointer<GpuOverlayPanel> m_overlay;
    QPointer<GpuSummaryPanel> m_summary;
    JobTracker* m_jobs;
    std::shared_ptr<const gpu::GpuReport> m_report;
    bool m_overlayBlock = false;
};

} // namespace ks
