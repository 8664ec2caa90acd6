#pragma once
// The timeline's context menus, acting through the widget's public slots: on a slice of
// the primary trace, its name as the steps (issue 35: for traces without ProfilerStep#N,
// any slice's name or a pattern becomes the steps every analysis counts in); on the label
// column, the track layout (pin, fold Python lanes, move groups, GPU groups first, reset).
#include "widgets/timelinelanes.h"

#include <QCoreApplication>

namespace ks {

class TimelineWidget;

class TimelineContextMenu {
    Q_DECLARE_TR_FUNCTIONS(TimelineContextMenu)
public:
    // `at`: what is under viewport point `pos`. False when no menu belongs there.
    static bool exec(TimelineWidget& timeline, const TimelineLanes::Hit& at, const QPoint& pos,
                     const QPoint& globalPos);

private:
    static void execSliceMenu(TimelineWidget& timeline, TraceSlice slice, const QPoint& globalPos);
    static void execTrackMenu(TimelineWidget& timeline, const TimelineHit& hit, const QPoint& globalPos);
};

} // namespace ks
