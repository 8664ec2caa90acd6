#pragma once
// The timeline's scroll bars: the vertical one scrolls the stacked traces' tracks, the
// horizontal one spans the navigable time extent in kScrollSteps steps (an int range
// cannot hold nanoseconds of a long trace at fine zoom).
#include "core/timeline/contentextent.h"
#include "widgets/timelineviewstate.h"

class QScrollBar;

namespace ks {

class TimelineScrollBars {
public:
    static constexpr int kScrollSteps = 1'000'000;

    TimelineScrollBars(QScrollBar& horizontal, QScrollBar& vertical);

    // Sets the bars to the view (clamping its vertical scroll): `extent` is where the view
    // may go in axis time (none: start == end), `timeWidth` the time area's width.
    void show(TimelineViewState& view, const TimeExtent& extent, int timeWidth, int contentHeight, int tracksHeight,
              int rowHeight);
    // While show() moves the bars: their moves are not the user's.
    bool updating() const { return m_updating; }
    // The view start the horizontal bar's position stands for.
    TimeNs viewStart(const TimeExtent& extent) const;

private:
    QScrollBar& m_horizontal;
    QScrollBar& m_vertical;
    bool m_updating = false;
};

} // namespace ks
