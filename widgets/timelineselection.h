#pragma once
// What the user picked on the timeline: the selected slice (or thread instant), the slice
// under the cursor and the trace they act on. Several traces: each is a TraceSlice.
#include "core/timeline/traceslice.h"

namespace ks {

struct TimelineSelection {
    TraceSlice slice;
    std::uint32_t instant = kNoIndex; // a selected thread instant of slice.trace
    TraceSlice hovered;
    // The trace of the last selection (0 at first): Details, search and revealSlice() act on it.
    std::uint32_t current = 0;
};

} // namespace ks
