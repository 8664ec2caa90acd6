#pragma once
// Maps int64-ns trace time to horizontal pixels. The view start is subtracted as an
// integer before any floating-point math, so absolute-epoch traces (ts ~ 1.7e18 ns)
// keep nanosecond precision at every zoom level.
#include "core/model/time.h"

#include <string>

namespace ks {

class TimeScale {
public:
    // The finest zoom: a few hundred pixels per nanosecond is pointless.
    static constexpr double kMinNsPerPixel = 0.01;

    TimeScale() = default;
    TimeScale(TimeNs viewStart, double nsPerPixel);
    // The scale that shows [start, end) across `widthPx` pixels.
    static TimeScale fit(TimeNs start, TimeNs end, double widthPx);

    TimeNs viewStart() const { return m_start; }
    double nsPerPixel() const { return m_nsPerPixel; }
    TimeNs viewEnd(double widthPx) const;

    double timeToX(TimeNs t) const { return static_cast<double>(t - m_start) / m_nsPerPixel; }
    TimeNs xToTime(double x) const;

    // Zooms by `factor` (< 1 zooms in) keeping the time under pixel `x` where it is.
    TimeScale zoomedAt(double x, double factor) const;
    TimeScale pannedBy(double dxPixels) const;
    // Keeps the view inside [start, end) when it is wider than the view, and never
    // zooms out past showing all of it (plus nothing) across `widthPx`.
    TimeScale clampedTo(TimeNs start, TimeNs end, double widthPx) const;

    bool operator==(const TimeScale&) const = default;

private:
    TimeNs m_start = 0;
    double m_nsPerPixel = 1.0;
};

// A 1-2-5 step in ns whose ticks lie at least `minPixels` apart.
TimeNs rulerTickStep(double nsPerPixel, double minPixels);

// A ruler tick's label: `time` (a multiple of the 1-2-5 `step`, from the trace start) in the
// largest unit it reaches, with just the decimals the step needs: "45 ms", "2 s", "2.5 s",
// "45.002 ms", "800 µs"; zero in the step's unit ("0 ms").
std::string rulerLabel(TimeNs time, TimeNs step);

} // namespace ks
