#pragma once
// Where the timeline's view goes to show a slice (a reveal from a panel, Back/Forward, a
// followed flow): zoomed in, never out, just enough that the slice can be seen and clicked;
// fitted with a margin when it would fill most of the view; centred when it lies outside;
// and scrolled down or up to centre its row when the row is out of sight.
#include "core/timeline/contentextent.h"
#include "core/timeline/timescale.h"

#include <optional>

namespace ks {

// The narrowest a revealed slice is drawn, in pixels.
inline constexpr int kMinRevealWidthPx = 8;

// The scale that shows `slice` across `widthPx` with a tenth of its length on each side.
TimeScale scaleAroundSlice(TimeExtent slice, double widthPx);

// The scale that reveals `slice` from the view `scale` of `widthPx`, kept inside `axis` (where
// the view may go); `scale` itself when the slice is in view and wide enough.
TimeScale scaleToReveal(const TimeScale& scale, TimeExtent slice, double widthPx, TimeExtent axis);

// The vertical scroll that brings a row (`rowTop` in the tracks' coordinates, -1: hidden) of
// `rowHeight` into a view of `viewHeight` scrolled to `scrollY`, centred; none when it is in
// sight (or hidden).
std::optional<int> scrollToReveal(int rowTop, int rowHeight, int scrollY, int viewHeight);

} // namespace ks
