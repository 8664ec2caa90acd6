#pragma once
// The timeline's mouse and keys: zoom and pan (wheel, drag, W/A/S/D as in Perfetto and
// chrome://tracing), clicks that select or fold, range drags, group drags by their header,
// and the keys for flows, Back/Forward, Fit and Esc. It turns events into the widget's
// actions and keeps only the state of a drag under way.
#include "core/model/trace.h"

#include <QPoint>

class QKeyEvent;
class QMouseEvent;
class QWheelEvent;

namespace ks {

class TimelineWidget;

class TimelineInput {
public:
    explicit TimelineInput(TimelineWidget& timeline);

    // False: not the timeline's (the scroll area handles it).
    bool wheel(QWheelEvent* event);
    bool press(QMouseEvent* event);
    void move(QMouseEvent* event);
    void release(QMouseEvent* event);
    void leave();
    bool key(QKeyEvent* event);
    // New traces: a drag under way ends.
    void reset();

private:
    bool startsRangeDrag(const QMouseEvent* event) const;
    void dragRangeTo(double viewportX);
    void finishGroupDrag(const QMouseEvent* event);
    void click(const QMouseEvent* event);

    TimelineWidget& m_timeline;
    QPoint m_pressPos;
    QPoint m_lastDragPos;
    bool m_dragging = false;
    std::uint32_t m_groupDrag = kNoIndex; // the process whose header is dragged
};

} // namespace ks
