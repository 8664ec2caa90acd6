#pragma once
// The timeline's selected time range (as in Perfetto and Nsight Systems), in axis time:
// set by a drag (Shift on the tracks, plain on the ruler) or by a panel; painted as a
// shaded band whose start, end and duration the ruler shows.
#include "core/model/time.h"
#include "core/timeline/timescale.h"

#include <QPalette>
#include <QSize>

class QPainter;

namespace ks {

class TimelineRangeSelection {
public:
    bool active() const { return m_active; }
    TimeNs start() const { return m_start; }
    TimeNs end() const { return m_end; }
    void set(TimeNs start, TimeNs end);
    // False when there was none.
    bool clear();

    bool dragging() const { return m_dragging; }
    void beginDrag(TimeNs anchor);
    // The range from the drag's anchor to t.
    void dragTo(TimeNs t);
    // Ends the drag; false when it was too narrow on screen to keep (a click), and then
    // the range is gone.
    bool finishDrag(double nsPerPixel);

    // `axis`: the view; `origin`: the time the ruler counts from; `cursorX`: the hover
    // cursor in time-area pixels (< 0: none), whose ruler label the range's avoids.
    void paint(QPainter& painter, const QSize& size, const TimeScale& axis, TimeNs origin, double cursorX,
               const QPalette& palette) const;

private:
    TimeNs m_start = 0, m_end = 0;
    bool m_active = false;
    bool m_dragging = false;
    TimeNs m_anchor = 0; // where the drag began
};

} // namespace ks
