#pragma once
// The GPU metric overlays, one group of three tracks (GPU Utilization, Est. SM Efficiency,
// Est. Achieved Occupancy) per GPU, meant to sit directly under the timeline and follow its
// visibleRangeChanged(). Each metric can be switched off; the choice is kept in QSettings.
#include "widgets/gpumetrictrack.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QVBoxLayout;

namespace ks {

class GpuOverlayPanel : public QWidget {
    Q_OBJECT
public:
    explicit GpuOverlayPanel(QWidget* parent = nullptr);

    void setReport(const std::shared_ptr<const gpu::GpuReport>& report);
    // Lines the plotted time area up with the timeline's (its label column on the left).
    void setTimeAreaMargins(int left, int right);
    const std::vector<GpuMetricTrack*>& tracks() const { return m_tracks; }
    bool isMetricShown(GpuMetric metric) const;

public Q_SLOTS:
    void setVisibleRange(ks::TimeNs start, ks::TimeNs end);
    void setMetricShown(ks::GpuMetric metric, bool shown);

private:
    void clearTracks();

    QVBoxLayout* m_tracksLayout = nullptr;
    QCheckBox* m_toggles[3] = {};
    std::vector<GpuMetricTrack*> m_tracks;
    TimeNs m_start = 0, m_end = 0;
    int m_leftMargin = 0, m_rightMargin = 0;
};

} // namespace ks
