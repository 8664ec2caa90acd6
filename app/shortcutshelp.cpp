#include "app/shortcutshelp.h"

#include "app/commandpalette.h"
#include "app/shortcutsoverlay.h"

#include <QAction>
#include <QKeySequence>
#include <QMenu>
#include <QRegularExpression>
#include <QWidget>

namespace ks {

QString actionKeysText(const QAction& action)
{
    QStringList keys;
    for (const QKeySequence& key : action.shortcuts())
        keys << key.toString(QKeySequence::NativeText);
    return keys.join(QStringLiteral(", "));
}

QString actionLabel(const QAction& action)
{
    QString text = action.text();
    text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
    if (text.endsWith(QStringLiteral("…")))
        text.chop(1);
    return text;
}

QList<QAction*> actionsWithKeys(const QWidget& window)
{
    QList<QAction*> out;
    for (QAction* action : window.findChildren<QAction*>()) {
        if (!action->shortcuts().isEmpty())
            out << action;
    }
    return out;
}

QList<QAction*> namedActions(const QWidget& window)
{
    QList<QAction*> out;
    for (QAction* action : window.findChildren<QAction*>()) {
        if (!action->isSeparator() && !action->menu() && !actionLabel(*action).isEmpty())
            out << action;
    }
    return out;
}

void addKeysToToolTips(const QList<QAction*>& actions)
{
    for (QAction* action : actions) {
        const QString keys = actionKeysText(*action);
        if (!keys.isEmpty() && !action->toolTip().endsWith(QLatin1Char(')')))
            action->setToolTip(QStringLiteral("%1 (%2)").arg(action->toolTip(), keys));
    }
}

void installShortcutsHelp(QWidget& window, QMenu& help)
{
    QAction* shortcuts = help.addAction(ShortcutsOverlay::tr("&Keyboard Shortcuts"), &window, [&window] {
        auto* overlay = new ShortcutsOverlay(window);
        overlay->setAttribute(Qt::WA_DeleteOnClose);
        overlay->open();
    });
    shortcuts->setObjectName(QStringLiteral("keyboardShortcutsAction"));
    shortcuts->setShortcut(QKeySequence(Qt::Key_Question));
    QAction* palette = help.addAction(CommandPalette::tr("&Command Palette…"), &window, [&window] {
        auto* dialog = new CommandPalette(window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
    palette->setObjectName(QStringLiteral("commandPaletteAction"));
    palette->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    addKeysToToolTips(actionsWithKeys(window));
}

} // namespace ks
