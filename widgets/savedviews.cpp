#include "widgets/savedviews.h"

#include "widgets/timelinewidget.h"

#include <QScrollBar>

#include <algorithm>

namespace ks {

notes::SavedView captureView(const TimelineWidget& timeline, std::string name)
{
    notes::SavedView view;
    view.name = std::move(name);
    const TimeScale scale = timeline.timeScale();
    view.visible = {scale.viewStart(), scale.viewEnd(timeline.timeAreaWidth())};
    if (timeline.hasSelectedRange())
        view.selectedRange = timeline.selectedRange();
    view.selectedSlice = timeline.currentTrace() == 0 ? timeline.selectedSlice() : kNoSlice;
    view.layout = timeline.trackLayout().options();
    view.layout.metricTracks.clear();
    if (const auto trace = timeline.trace()) {
        for (std::uint32_t p = 0; p < trace->processes().size(); ++p) {
            if (timeline.isProcessCollapsed(p))
                view.collapsedProcesses.push_back(p);
        }
    }
    view.scrollY = timeline.scrollY();
    return view;
}

void applyView(TimelineWidget& timeline, const notes::SavedView& view)
{
    const auto trace = timeline.trace();
    if (!trace)
        return;
    // The slice first: revealing it expands its group and moves the view, which the rest sets.
    if (view.selectedSlice != kNoSlice && view.selectedSlice < trace->slices().size())
        timeline.revealSlice(view.selectedSlice);
    else
        timeline.clearSelection();
    timeline.setViewLayout(view.layout);
    for (std::uint32_t p = 0; p < trace->processes().size(); ++p) {
        const bool collapsed = std::find(view.collapsedProcesses.begin(), view.collapsedProcesses.end(), p)
            != view.collapsedProcesses.end();
        timeline.setProcessCollapsed(p, collapsed);
    }
    if (view.visible.end > view.visible.start)
        timeline.setVisibleRange(view.visible.start, view.visible.end);
    if (view.selectedRange)
        timeline.setSelectedRange(view.selectedRange->start, view.selectedRange->end);
    else
        timeline.clearSelectedRange();
    timeline.verticalScrollBar()->setValue(view.scrollY);
}

} // namespace ks
