#pragma once
// The renderer's per-frame geometry, shared by its source files (timelinerenderer.cpp,
// timelinecounters.cpp).
#include "widgets/timelinerenderer.h"

namespace ks {

struct TimelineRenderer::Viewport {
    QSize size;
    const TrackLayout& layout;
    const TimelineViewState& state;
    int timeWidth = 0;
    int tracksHeight = 0;

    int timeLeft() const { return kLabelWidth; }
    // Content y (layout coordinates) to viewport y.
    int toViewY(int contentY) const { return contentY - state.scrollY + kRulerHeight; }
};

} // namespace ks
