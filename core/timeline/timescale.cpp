#include "core/timeline/timescale.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

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

namespace {

struct RulerUnit {
    TimeNs scale;
    const char* suffix;
};

RulerUnit rulerUnitFor(TimeNs magnitude)
{
    for (const RulerUnit unit : {RulerUnit{1'000'000'000, "s"}, RulerUnit{1'000'000, "ms"}, RulerUnit{1'000, "µs"}}) {
        if (magnitude >= unit.scale)
            return unit;
    }
    return {1, "ns"};
}

} // namespace

std::string rulerLabel(TimeNs time, TimeNs step)
{
    step = std::max<TimeNs>(step, 1);
    // |INT64_MIN| does not fit: such a time is no tick of a real trace anyway.
    const TimeNs magnitude = time == INT64_MIN ? INT64_MAX : (time < 0 ? -time : time);
    const RulerUnit unit = rulerUnitFor(magnitude == 0 ? step : magnitude);
    // The fewest decimals that show every multiple of the step exactly.
    int decimals = 0;
    TimeNs digit = unit.scale; // the value of one unit of the last decimal shown, in ns
    while (digit > 1 && step % digit != 0) {
        digit /= 10;
        ++decimals;
    }
    const TimeNs whole = magnitude / unit.scale;
    std::string label = (time < 0 ? "-" : "") + std::to_string(whole);
    if (decimals > 0) {
        // 45.500 ms -> 45.5 ms, 2.000 s -> 2 s.
        std::string fraction = std::to_string((magnitude % unit.scale) / digit);
        fraction.insert(0, std::size_t(decimals) - std::min(fraction.size(), std::size_t(decimals)), '0');
        while (!fraction.empty() && fraction.back() == '0')
            fraction.pop_back();
        if (!fraction.empty())
            label += '.' + fraction;
    }
    label += ' ';
    label += unit.suffix;
    return label;
}

} // namespace ks
