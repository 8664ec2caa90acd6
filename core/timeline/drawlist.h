#pragma once
// Level of detail for one timeline row: the slices of the row that intersect the view,
// with runs of slices narrower than a few pixels folded into one item per pixel column.
// Building a row costs O(pixels · log n), never O(events), so a frame's cost depends on
// the window size and not on the trace size. Painting and hit testing use the same list.
#include "core/model/trace.h"
#include "core/timeline/timescale.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <vector>

namespace ks {

// std::lower_bound for a search that moves forward through sorted data in small steps
// (one pixel column at a time): gallops from `first`, so a step that skips k elements
// costs O(log k) probes close together instead of O(log n) scattered ones.
template <class It, class T>
It gallopingLowerBound(It first, It last, const T& value)
{
    std::ptrdiff_t bound = 1;
    const std::ptrdiff_t size = std::distance(first, last);
    while (bound < size && first[bound] < value)
        bound *= 2;
    return std::lower_bound(first + bound / 2, first + std::min(bound + 1, size), value);
}

struct DrawItem {
    double x0 = 0; // pixel span relative to the view start (not clipped)
    double x1 = 0;
    SliceId first = kNoSlice; // the slice, or the first slice of a folded run
    std::uint32_t count = 0; // 1: a single slice; more: a folded run [first, first + count)

    bool folded() const { return count > 1; }
};

struct DrawListOptions {
    double minWidthPx = 3.0; // slices narrower than this are folded
};

// Appends the items of `row` visible in [0, widthPx) to `out`, in time order.
void appendRowDrawList(const Trace& trace, std::uint32_t row, const TimeScale& scale, double widthPx,
                       std::vector<DrawItem>& out, const DrawListOptions& options = {});

// The item under pixel x in a row's items (items are sorted and disjoint), or nullptr.
// `slackPx` widens thin items so they stay clickable.
const DrawItem* drawItemAt(const std::vector<DrawItem>& items, std::size_t begin, std::size_t end, double x,
                           double slackPx = 1.0);

} // namespace ks
