#include "core/timeline/revealview.h"

#include <algorithm>
#include <cmath>

namespace ks {

TimeScale scaleAroundSlice(TimeExtent slice, double widthPx)
{
    const TimeNs duration = std::max<TimeNs>(slice.end - slice.start, 1);
    // A margin on both sides keeps the neighbours in sight.
    return TimeScale::fit(slice.start - duration / 10, slice.start + duration + duration / 10, widthPx);
}

TimeScale scaleToReveal(const TimeScale& view, TimeExtent slice, double widthPx, TimeExtent axis)
{
    TimeScale scale = view;
    const double sliceWidthPx = double(slice.end - slice.start) / scale.nsPerPixel();
    if (sliceWidthPx > widthPx * 0.9) {
        scale = scaleAroundSlice(slice, widthPx).clampedTo(axis.start, axis.end, widthPx);
    } else if (sliceWidthPx < kMinRevealWidthPx) {
        const double nsPerPixel = std::max(double(slice.end - slice.start), 1.0) / kMinRevealWidthPx;
        scale = TimeScale(scale.viewStart(), std::min(scale.nsPerPixel(), nsPerPixel));
    }
    if (scale.timeToX(slice.start) < 0 || scale.timeToX(slice.end) > widthPx) {
        const TimeNs centre = slice.start + (slice.end - slice.start) / 2;
        scale = TimeScale(centre - TimeNs(std::llround(scale.nsPerPixel() * widthPx / 2)), scale.nsPerPixel());
    }
    return scale.clampedTo(axis.start, axis.end, widthPx);
}

std::optional<int> scrollToReveal(int rowTop, int rowHeight, int scrollY, int viewHeight)
{
    if (rowTop < 0 || (rowTop >= scrollY && rowTop + rowHeight <= scrollY + viewHeight))
        return std::nullopt;
    return rowTop - viewHeight / 2;
}

} // namespace ks
