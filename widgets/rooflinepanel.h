#pragma once
// The Roofline dock: the RooflinePlot of the timeline's trace, the device and the datasheet
// its roofs come from, and the user's peak overrides (kept in the settings, PeakSettings).
// Clicking a point highlights and reveals the kernels of its op calls on the timeline.
// The points are computed by a JobTracker on the shared analysis pool; the op costs are read
// once per trace, so new peaks only recompute the points; nothing runs while the panel is
// hidden. GUI thread only.
#include "core/analysis/roofline.h"

#include <QPointer>
#include <QWidget>

#include <memory>

class QLabel;
class QLineEdit;

namespace ks {

class JobTracker;
class RooflinePlot;
class TimelineWidget;

class RooflinePanel : public QWidget {
    Q_OBJECT
public:
    explicit RooflinePanel(TimelineWidget* timeline, QWidget* parent = nullptr);
    ~RooflinePanel() override;

    RooflinePlot* plot() const { return m_plot; }
    // Saves the peak fields to the settings and recomputes.
    void applyPeaks();

Q_SIGNALS:
    void rooflineReady(int points);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void analyze(std::shared_ptr<const Trace> trace);
    void apply(std::shared_ptr<const analysis::Roofline> roofline);
    void selectPoint(int point);

    QPointer<TimelineWidget> m_timeline;
    JobTracker* m_jobs;
    RooflinePlot* m_plot;
    QLabel* m_device;
    QLineEdit* m_tflops;
    QLineEdit* m_tbps;
    std::shared_ptr<const Trace> m_trace;
    std::shared_ptr<const analysis::OpCosts> m_costs; // of m_trace, once read
    bool m_stale = false; // a trace came while hidden: computed when shown (a tabbed dock rarely is)
};

} // namespace ks
