#include "core/timeline/timescale.h"

#include <algorithm>
#include <cmath>

namespace ks {

TimeScale::TimeScale(TimeNs viewStart, double nsPerPixel)
    : m_start(viewStart)
    , m_nsPerPixel(std::max(nsPerPixel, kMinNsPerPixel))
{
}

TimeScale TimeScale::fit(TimeNs start, TimeNs end, double widthPx)
{
    const TimeNs span = std::max<TimeNs>(end - start, 1);
    return TimeScale(start, static_cast<double>(span) / std::max(widthPx, 1.0));
}

TimeNs TimeScale::viewEnd(double widthPx) const { return xToTime(widthPx); }

TimeNs TimeScale::xToTime(double x) const { return m_start + static_cast<TimeNs>(std::llround(x * m_nsPerPixel)); }

TimeScale TimeScale::zoomedAt(double x, double factor) const
{
    const double newNsPerPixel = std::max(m_nsPerPixel * factor, kMinNsPerPixel);
    // Offset of the anchor from the view start, before and after: only the difference
    // is rounded, so the anchored time moves by at most half a nanosecond.
    const double shift = x * m_nsPerPixel - x * newNsPerPixel;
    return TimeScale(m_start + static_cast<TimeNs>(std::llround(shift)), newNsPerPixel);
}

TimeScale TimeScale::pannedBy(double dxPixels) const
{
    return TimeScale(m_start + static_cast<TimeNs>(std::llround(dxPixels * m_nsPerPixel)), m_nsPerPixel);
}

TimeScale TimeScale::clampedTo(TimeNs start, TimeNs end, double widthPx) const
{
    const TimeNs span = std::max<TimeNs>(end - start, 1);
    const double maxNsPerPixel = static_cast<double>(span) / std::max(widthPx, 1.0);
    const double nsPerPixel = std::min(m_nsPerPixel, maxNsPerPixel);
    const auto visible = static_cast<TimeNs>(std::llround(nsPerPixel * widthPx));
    const TimeNs viewStart = std::clamp(m_start, start, std::max(start, end - visible));
    return TimeScale(viewStart, nsPerPixel);
}

TimeNs rulerTickStep(double nsPerPixel, double minPixels)
{
    const double minNs = std::max(nsPerPixel * minPixels, 1.0);
    TimeNs decade = 1;
    while (true) {
        for (TimeNs m : {1, 2, 5}) {
            if (static_cast<double>(decade * m) >= minNs)
                return decade * m;
        }
        decade *= 10;
    }
}

} // namespace ks
