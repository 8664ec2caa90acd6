#pragma once
// The GPU reports whose metrics the timeline's GPU metric tracks plot: at most one per trace
// shown (by GpuReport::trace), or, while a live recording's newer snapshot waits for its
// own, the previous snapshot's report carried over for the primary trace, so the tracks
// neither vanish nor come back (nor the scroll bar) with each snapshot.
#include "widgets/timelinelanes.h"

#include <memory>
#include <vector>

namespace ks {

namespace gpu {
struct GpuReport;
}

class TimelineGpuReports {
public:
    // New traces are shown: reports of traces no longer shown would never be drawn again.
    void keepShown(const std::vector<TimelineTrace>& traces);
    // A newer snapshot replaces the lone trace shown: its report stays until add() brings the
    // snapshot's own.
    void carryPrimary(const TimelineLanes& lanes);
    // A trace's report (replacing its previous one); null: none for any trace.
    void add(std::shared_ptr<const gpu::GpuReport> report);
    // Off: no GPU metric tracks (the separate overlay block shows them instead).
    bool shown() const { return m_shown; }
    void setShown(bool shown) { m_shown = shown; }

    std::shared_ptr<const gpu::GpuReport> reportOf(const TimelineLanes& lanes, std::uint32_t lane) const;
    // Hands each trace's renderer its report and gives its GPU groups their metric tracks;
    // the caller relays out.
    void applyTo(TimelineLanes& lanes) const;

private:
    std::vector<std::shared_ptr<const gpu::GpuReport>> m_reports;
    // m_reports' only report is an older snapshot's, shown for the primary trace.
    bool m_carried = false;
    bool m_shown = true;
};

} // namespace ks
