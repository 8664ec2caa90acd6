#pragma once
// The user's edits of one trace's track layout on the timeline: pinned tracks above all
// groups, GPU groups first, Python lanes folded to their top row, counter and GPU metric
// tracks collapsed to a thin plot, groups dragged into another order, and back to the
// defaults. A lone trace's edits are kept per trace kind by TimelineLayoutSettings. Each
// edit says whether anything changed; the timeline then relays out.
#include "widgets/timelinelanes.h"

namespace ks {

class TimelineTrackEditor {
public:
    TimelineTrackEditor(TimelineLanes& lanes, std::uint32_t trace);

    static bool isPythonLaneFolded(const TrackLayout& layout, std::uint32_t track);
    bool setTrackPinned(std::uint32_t track, bool pinned);
    bool setGpuFirst(bool first);
    // `remember` false: only for this view (a slice revealed inside the folded lane).
    bool setPythonLaneFolded(std::uint32_t track, bool folded, bool remember);
    // `kind`: Counter (`index` a counter) or Metric (`index` a metric of GPU `process`).
    bool setPlotTrackCollapsed(LayoutItem::Kind kind, std::uint32_t process, std::uint32_t index, bool collapsed);
    bool togglePlotTrack(const TimelineHit& label);
    // Moves a process group before another (kNoIndex: to the end).
    bool moveGroup(std::uint32_t process, std::uint32_t before);
    bool reset();
    // A saved view's layout (metric tracks aside), for this view only: not remembered.
    bool applyView(const LayoutOptions& options);

private:
    bool valid() const { return m_trace < m_lanes.size(); }
    const Trace& trace() const { return *m_lanes[m_trace].source.trace; }
    const TrackLayout& layout() const { return m_lanes[m_trace].layout; }
    bool change(const std::function<void(LayoutOptions&)>& edit, bool remember = true);

    TimelineLanes& m_lanes;
    std::uint32_t m_trace;
};

} // namespace ks
