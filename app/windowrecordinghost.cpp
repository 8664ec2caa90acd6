#include "app/windowrecordinghost.h"

#include "app/mainwindow.h"
#include "widgets/timelinewidget.h"

#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>

namespace ks {

WindowRecordingHost::WindowRecordingHost(MainWindow* window)
    : m_window(window)
{
}

QWidget* WindowRecordingHost::dialogParent() { return m_window; }

void WindowRecordingHost::addFileActions(const QList<QAction*>& actions)
{
    QMenuBar* bar = m_window->menuBar();
    QMenu* file = bar->actions().isEmpty() ? nullptr : bar->actions().first()->menu();
    if (!file)
        file = bar->addMenu(QObject::tr("&File"));
    QAction* beforeQuit = nullptr; // the last separator: the one that precedes Quit
    for (QAction* action : file->actions()) {
        if (action->isSeparator())
            beforeQuit = action;
    }
    file->insertActions(beforeQuit, actions);
}

void WindowRecordingHost::addStatusWidget(QWidget* widget) { m_window->statusBar()->addWidget(widget, 1); }

void WindowRecordingHost::showStatusMessage(const QString& message, int timeoutMs)
{
    m_window->statusBar()->showMessage(message, timeoutMs);
}

std::shared_ptr<const Trace> WindowRecordingHost::shownTrace() const { return m_window->trace(); }

void WindowRecordingHost::showTrace(std::shared_ptr<const Trace> trace, const QString& title, bool newerSnapshot)
{
    m_window->showTrace(std::move(trace), title, newerSnapshot);
}

TimeScale WindowRecordingHost::timelineScale() const { return m_window->timeline()->timeScale(); }

int WindowRecordingHost::timelineWidth() const { return m_window->timeline()->timeAreaWidth(); }

void WindowRecordingHost::setTimelineScale(const TimeScale& scale) { m_window->timeline()->setTimeScale(scale); }

void WindowRecordingHost::setTimelineRange(TimeNs start, TimeNs end)
{
    m_window->timeline()->setVisibleRange(start, end);
}

void WindowRecordingHost::setTimelineLeftOutBefore(TimeNs time) { m_window->timeline()->setLeftOutBefore(time); }

} // namespace ks
