#pragma once
// One trace on the timeline: its renderer, track layout, folded groups and highlights.
#include "core/timeline/contentextent.h"
#include "core/timeline/tracklayout.h"
#include "widgets/timelinehighlightset.h"
#include "widgets/timelinerenderer.h"
#include "widgets/timelinetrace.h"

#include <memory>
#include <vector>

namespace ks {

struct TimelineLane {
    TimelineTrace source;
    std::unique_ptr<TimelineRenderer> renderer;
    TrackLayout layout;
    TimeExtent content; // what Fit All shows (no far-away global instants)
    std::vector<bool> collapsed; // per process
    TimelineHighlightSet highlights;
};

} // namespace ks
