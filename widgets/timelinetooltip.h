#pragma once
// What the timeline's tooltip says about the point under the cursor: a slice, a folded
// run, a group header, a thread instant, a plot track's label or its value.
#include "widgets/timelinelanes.h"

#include <QCoreApplication>
#include <QString>

namespace ks {

class TimelineToolTip {
    Q_DECLARE_TR_FUNCTIONS(TimelineToolTip)
public:
    // `at`: what is under viewport point `pos`; `axis`, `selection`: the view.
    static QString textAt(const TimelineLanes& lanes, const TimelineLanes::Hit& at, const QPoint& pos,
                          const QSize& size, const TimelineViewState& axis, const TimelineSelection& selection);
    // A thread instant (a [memory] sample is only a tick: its bytes are read in Details).
    static QString instantText(const Trace& trace, std::uint32_t instant);
};

} // namespace ks
