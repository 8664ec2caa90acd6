#include "widgets/timelinegpureports.h"

#include "core/gpu/gpureport.h"
#include "widgets/gpumetrictrack.h"

#include <algorithm>

namespace ks {

void TimelineGpuReports::keepShown(const std::vector<TimelineTrace>& traces)
{
    m_carried = false;
    std::erase_if(m_reports, [&](const auto& report) {
        return std::none_of(traces.begin(), traces.end(),
                            [&](const TimelineTrace& shown) { return shown.trace == report->trace; });
    });
}

void TimelineGpuReports::carryPrimary(const TimelineLanes& lanes)
{
    std::shared_ptr<const gpu::GpuReport> primary = lanes.size() == 1 ? reportOf(lanes, 0) : nullptr;
    m_carried = primary != nullptr;
    if (m_carried)
        m_reports = {std::move(primary)};
}

void TimelineGpuReports::add(std::shared_ptr<const gpu::GpuReport> report)
{
    if (m_carried || !report)
        m_reports.clear();
    if (report) {
        std::erase_if(m_reports, [&](const auto& shown) { return shown->trace == report->trace; });
        m_reports.push_back(std::move(report));
    }
    m_carried = false;
}

std::shared_ptr<const gpu::GpuReport> TimelineGpuReports::reportOf(const TimelineLanes& lanes, std::uint32_t lane) const
{
    if (m_carried && lane == 0 && !m_reports.empty())
        return m_reports.front();
    for (const auto& report : m_reports) {
        if (report->trace == lanes[lane].source.trace)
            return report;
    }
    return nullptr;
}

void TimelineGpuReports::applyTo(TimelineLanes& lanes) const
{
    for (std::uint32_t i = 0; i < lanes.size(); ++i) {
        TimelineLane& lane = lanes[i];
        std::shared_ptr<const gpu::GpuReport> report = reportOf(lanes, i);
        const bool ours = report != nullptr;
        lane.renderer->setGpuReport(std::move(report));
        LayoutOptions options = lane.layout.options();
        options.metricTracks.assign(lane.source.trace->processes().size(), 0);
        for (std::uint32_t p = 0; ours && m_shown && p < options.metricTracks.size(); ++p) {
            if (lane.renderer->gpuMetricIndex(p))
                options.metricTracks[p] = std::uint8_t(kGpuMetricCount);
        }
        lane.layout.setOptions(std::move(options));
    }
}

} // namespace ks
