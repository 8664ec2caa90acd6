#pragma once
// A named view of the timeline (issue 41, View ▸ Save View As…, `kinetoscope --view NAME`):
// what captureView() takes of the timeline (visible range, selected range and slice, track
// layout, collapsed groups, vertical scroll) and applyView() puts back. Primary trace only.
#include "core/notes/tracenotes.h"

namespace ks {

class TimelineWidget;

notes::SavedView captureView(const TimelineWidget& timeline, std::string name);
// The view's layout applies to this view only (not remembered for the trace's kind).
void applyView(TimelineWidget& timeline, const notes::SavedView& view);

} // namespace ks
