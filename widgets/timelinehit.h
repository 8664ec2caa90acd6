#pragma once
// What lies under a point of a trace's tracks (TimelineRenderer::hitTest).
#include "core/timeline/tracklayout.h"

namespace ks {

struct TimelineHit {
    enum class Kind { None, Slice, Folded, ProcessHeader, Label, Counter, Metric, Instant };
    Kind kind = Kind::None;
    LayoutItem::Kind item = LayoutItem::Kind::Process; // what the row under the point is
    SliceId slice = kNoSlice; // the slice, or the first of a folded run
    std::uint32_t count = 0; // events in a folded run
    std::uint32_t process = kNoIndex;
    std::uint32_t track = kNoIndex;
    std::uint32_t counter = kNoIndex; // Counter: the series; Metric: the metric (also on their labels)
    std::uint32_t instant = kNoIndex; // Instant: the thread instant under the point
};

} // namespace ks
