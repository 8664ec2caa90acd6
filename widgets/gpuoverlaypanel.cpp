#include "widgets/gpuoverlaypanel.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QVBoxLayout>

namespace ks {

namespace {

constexpr GpuMetric kMetrics[3] = {GpuMetric::Utilization, GpuMetric::SmEfficiency, GpuMetric::AchievedOccupancy};

QString settingsKey(GpuMetric metric) { return QStringLiteral("gpuOverlays/show%1").arg(int(metric)); }

} // namespace

GpuOverlayPanel::GpuOverlayPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* toggles = new QHBoxLayout;
    toggles->addWidget(new QLabel(tr("GPU overlays:"), this));
    QSettings settings;
    for (int i = 0; i < 3; ++i) {
        const GpuMetric metric = kMetrics[i];
        m_toggles[i] = new QCheckBox(GpuMetricTrack::metricTitle(metric), this);
        m_toggles[i]->setChecked(settings.value(settingsKey(metric), true).toBool());
        connect(m_toggles[i], &QCheckBox::toggled, this, [this, metric](bool on) { setMetricShown(metric, on); });
        toggles->addWidget(m_toggles[i]);
    }
    toggles->addStretch(1);
    layout->addLayout(toggles);
    m_tracksLayout = new QVBoxLayout;
    m_tracksLayout->setSpacing(1);
    layout->addLayout(m_tracksLayout);
}

void GpuOverlayPanel::clearTracks()
{
    for (GpuMetricTrack* track : m_tracks)
        delete track;
    m_tracks.clear();
}

void GpuOverlayPanel::setReport(const std::shared_ptr<const gpu::GpuReport>& report)
{
    clearTracks();
    if (!report)
        return;
    for (const auto& index : report->analysis.gpus) {
        for (GpuMetric metric : kMetrics) {
            auto* track = new GpuMetricTrack(metric, this);
            track->setReport(report, index.device());
            track->setTimeAreaMargins(m_leftMargin, m_rightMargin);
            track->setVisibleRange(m_start, m_end);
            track->setVisible(isMetricShown(metric));
            m_tracksLayout->addWidget(track);
            m_tracks.push_back(track);
        }
    }
}

void GpuOverlayPanel::setTimeAreaMargins(int left, int right)
{
    m_leftMargin = left;
    m_rightMargin = right;
    for (auto* track : m_tracks)
        track->setTimeAreaMargins(left, right);
}

void GpuOverlayPanel::setVisibleRange(TimeNs start, TimeNs end)
{
    m_start = start;
    m_end = end;
    for (auto* track : m_tracks) {
        if (!track->isHidden()) // hidden ones catch up when they are switched on
            track->setVisibleRange(start, end);
    }
}

bool GpuOverlayPanel::isMetricShown(GpuMetric metric) const { return m_toggles[int(metric)]->isChecked(); }

void GpuOverlayPanel::setMetricShown(GpuMetric metric, bool shown)
{
    if (m_toggles[int(metric)]->isChecked() != shown)
        m_toggles[int(metric)]->setChecked(shown); // comes back here through toggled()
    QSettings().setValue(settingsKey(metric), shown);
    for (auto* track : m_tracks) {
        if (track->metric() == metric) {
            track->setVisible(shown);
            if (shown)
                track->setVisibleRange(m_start, m_end);
        }
    }
}

} // namespace ks
