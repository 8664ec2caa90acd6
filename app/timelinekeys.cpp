#include "app/timelinekeys.h"

#include "widgets/timelinewidget.h"

#include <QAction>
#include <QCoreApplication>
#include <QKeyEvent>
#include <QMenu>
#include <QPointer>

namespace ks {

TimelineKeyActions addTimelineKeyActions(QMenu& view, TimelineWidget& timeline)
{
    struct KeyAction {
        const char* name;
        const char* text;
        QList<QKeySequence> keys;
    };
    const KeyAction actions[] = {
        {"zoomInAction", QT_TRANSLATE_NOOP("ks::MainWindow", "Zoom &In"), {QKeySequence(Qt::Key_W)}},
        {"zoomOutAction", QT_TRANSLATE_NOOP("ks::MainWindow", "Zoom O&ut"), {QKeySequence(Qt::Key_S)}},
        {"panLeftAction", QT_TRANSLATE_NOOP("ks::MainWindow", "Pan &Left"), {QKeySequence(Qt::Key_A)}},
        {"panRightAction", QT_TRANSLATE_NOOP("ks::MainWindow", "Pan &Right"), {QKeySequence(Qt::Key_D)}},
        {"fitAllAction",
         QT_TRANSLATE_NOOP("ks::MainWindow", "Fit &All"),
         {QKeySequence(Qt::Key_0), QKeySequence(Qt::Key_Home)}},
        {"fitSelectionAction", QT_TRANSLATE_NOOP("ks::MainWindow", "Zoom to &Selection"), {QKeySequence(Qt::Key_F)}},
    };
    QPointer<TimelineWidget> target(&timeline);
    TimelineKeyActions shown;
    for (const KeyAction& entry : actions) {
        QAction* action = view.addAction(QCoreApplication::translate("ks::MainWindow", entry.text));
        action->setObjectName(QLatin1String(entry.name));
        action->setShortcuts(entry.keys);
        action->setShortcutContext(Qt::WindowShortcut);
        action->setAutoRepeat(true);
        const int key = entry.keys.front()[0].key();
        QObject::connect(action, &QAction::triggered, &timeline, [target, key, action] {
            if (!target)
                return;
            // A sent key press goes through the shortcut map again: while it travels to the
            // timeline, this action must not catch it.
            action->setEnabled(false);
            QKeyEvent press(QEvent::KeyPress, key, Qt::NoModifier);
            QCoreApplication::sendEvent(target, &press);
            action->setEnabled(true);
        });
        if (action->objectName() == QLatin1String("fitAllAction"))
            shown.fitAll = action;
        else if (action->objectName() == QLatin1String("fitSelectionAction"))
            shown.fitSelection = action;
    }
    return shown;
}

} // namespace ks
