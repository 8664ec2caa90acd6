#pragma once
// Help built from the window's own actions, so it can never disagree with them: the
// keyboard shortcuts overlay (`?`, Help ▸ Keyboard Shortcuts), tooltips that name each
// action's keys, and the command palette (Ctrl+Shift+P) that runs any action by name.
#include <QList>
#include <QString>
#include <Qt>

class QAction;
class QMenu;
class QWidget;

namespace ks {

// Every action of `window` (menus, toolbars, panels) that has a shortcut.
QList<QAction*> actionsWithKeys(const QWidget& window);
// Every action of `window` that has text and is not a submenu or separator.
QList<QAction*> namedActions(const QWidget& window);
// The item data role that holds an item's QAction in the overlay and the palette.
inline constexpr int kActionRole = Qt::UserRole + 1;

// "Fit All", without mnemonics and trailing ellipsis.
QString actionLabel(const QAction& action);
// "Ctrl+O, F3": the action's keys as the platform writes them.
QString actionKeysText(const QAction& action);
// Appends the keys to the tooltip of each action that has some: "Fit All (0, Home)".
void addKeysToToolTips(const QList<QAction*>& actions);

// Help ▸ Keyboard Shortcuts (`?`) and Command Palette (Ctrl+Shift+P) in `help`; tooltips
// with keys for every action the window has now.
void installShortcutsHelp(QWidget& window, QMenu& help);

} // namespace ks
