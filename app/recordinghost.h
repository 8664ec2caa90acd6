#pragma once
// What RecordingController needs of the window it records into, and no more: a parent for
// its dialogs, places for its File actions and status line, the trace shown, and the
// timeline's view, carried from one live snapshot to the next. MainWindow implements it.
#include "core/model/trace.h"
#include "core/timeline/timescale.h"

#include <QList>

#include <memory>

class QAction;
class QString;
class QWidget;

namespace ks {

class RecordingHost {
public:
    virtual ~RecordingHost() = default;

    // Parent of the Record dialog, the file dialog and the message boxes.
    virtual QWidget* dialogParent() = 0;
    // Adds actions to the File menu, before the separator that precedes Quit.
    virtual void addFileActions(const QList<QAction*>& actions) = 0;
    // Adds a stretching widget to the status bar; showStatusMessage() shows a transient line.
    virtual void addStatusWidget(QWidget* widget) = 0;
    virtual void showStatusMessage(const QString& message, int timeoutMs = 0) = 0;

    virtual std::shared_ptr<const Trace> shownTrace() const = 0;
    // `newerSnapshot`: it continues the trace shown (TimelineWidget::setNewerSnapshot()).
    virtual void showTrace(std::shared_ptr<const Trace> trace, const QString& title, bool newerSnapshot) = 0;

    // The timeline's view: its scale, the width of its time area, and two ways to set it.
    virtual TimeScale timelineScale() const = 0;
    virtual int timelineWidth() const = 0;
    virtual void setTimelineScale(const TimeScale& scale) = 0;
    virtual void setTimelineRange(TimeNs start, TimeNs end) = 0;
    // A live snapshot holds the events from `time` on only: the timeline marks what lies before
    // (TimelineWidget::setLeftOutBefore; the trace's start: nothing left out).
    virtual void setTimelineLeftOutBefore(TimeNs time) = 0;
};

} // namespace ks
