#pragma once
// What one frame of one trace's tracks shows: the time scale, the vertical scroll and
// what is selected, hovered or highlighted. The widget builds one per trace shown (its
// own time, its band's scroll) and hands it to that trace's renderer.
#include "core/model/trace.h"
#include "core/timeline/timescale.h"

#include <vector>

namespace ks {

struct TimelineViewState {
    TimeScale scale;
    int scrollY = 0;
    SliceId selected = kNoSlice;
    SliceId hovered = kNoSlice; // the other ends of its flows are outlined
    const std::vector<bool>* highlightedNames = nullptr; // by StringId; null: no search
    // Slices to highlight (sorted; e.g. an insight's evidence); null: none. With either
    // highlight active everything not highlighted is dimmed.
    const std::vector<SliceId>* highlightedSlices = nullptr;
    const std::vector<bool>* hiddenFlowCategories = nullptr; // by StringId
    const std::vector<SliceId>* markedSlices = nullptr; // outlined (the same step on every rank)
    std::uint32_t selectedInstant = kNoIndex; // a thread instant (a [memory] sample)
    bool allFlowsInView = false;
    double cursorX = -1; // hover cursor, in time-area pixels; < 0: none
};

} // namespace ks
