#include "core/timeline/drawlist.h"

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

// First slice in [from, end) that starts at or after t (slices of a row are sorted and
// do not overlap, so starts and ends are both monotonic).
SliceId firstStartingAtOrAfter(const SliceTable& slices, SliceId from, SliceId end, TimeNs t)
{
    const auto begin = slices.start.begin();
    return static_cast<SliceId>(gallopingLowerBound(begin + from, begin + end, t) - begin);
}

} // namespace

void appendRowDrawList(const Trace& trace, std::uint32_t row, const TimeScale& scale, double widthPx,
                       std::vector<DrawItem>& out, const DrawListOptions& options)
{
    const Row& r = trace.rows()[row];
    const SliceTable& slices = trace.slices();
    const TimeNs viewEnd = scale.viewEnd(widthPx);
    SliceId s = trace.firstEndingAfter(row, scale.viewStart());
    while (s < r.end && slices.start[s] < viewEnd) {
        const double x0 = scale.timeToX(slices.start[s]);
        const double x1 = scale.timeToX(slices.end(s));
        if (x1 - x0 >= options.minWidthPx) {
            out.push_back({x0, x1, s, 1});
            ++s;
            continue;
        }
        // Fold everything that starts before the end of this pixel column. All but the
        // last of those end before the next one starts, so only the last can be wide.
        const double columnEnd = std::floor(std::max(x0, 0.0)) + 1.0;
        SliceId next = firstStartingAtOrAfter(slices, s + 1, r.end, scale.xToTime(columnEnd));
        next = std::max(next, s + 1);
        const SliceId last = next - 1;
        if (last > s && scale.timeToX(slices.end(last)) - scale.timeToX(slices.start[last]) >= options.minWidthPx)
            next = last; // the wide one is drawn on its own next round
        const double runEnd = scale.timeToX(slices.end(next - 1));
        out.push_back({x0, std::max(runEnd, x0), s, next - s});
        s = next;
    }
}

const DrawItem* drawItemAt(const std::vector<DrawItem>& items, std::size_t begin, std::size_t end, double x,
                           double slackPx)
{
    const auto first = items.begin() + static_cast<std::ptrdiff_t>(begin);
    const auto last = items.begin() + static_cast<std::ptrdiff_t>(end);
    // First item whose right edge (with slack) reaches x.
    auto it = std::partition_point(
        first, last, [&](const DrawItem& item) { return std::max(item.x1, item.x0 + 1.0) + slackPx < x; });
    if (it == last || it->x0 - slackPx > x)
        return nullptr;
    return &*it;
}

} // namespace ks
