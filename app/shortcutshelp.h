#pragma once
// Help built from the window's own actions, so it can never disagree with them: the
// keyboard shortcuts overlay (`?`, Help ▸ Keyboard Shortcuts), tooltips that name each
// action's keys, and the command palette (Ctrl+Shift+P) that runs any action by name.
#include <QDialog>
#include <QList>

class QAction;
class QLineEdit;
class QListWidget;
class QMenu;
class QTreeWidget;

namespace ks {

// Every action of `window` (menus, toolbars, panels) that has a shortcut.
QList<QAction*> actionsWithKeys(const QWidget& window);
// Every action of `window` that has text and is not a submenu or separator.
QList<QAction*> namedActions(const QWidget& window);
// "Fit All", without mnemonics and trailing ellipsis.
QString actionLabel(const QAction& action);
// Appends the keys to the tooltip of each action that has some: "Fit All (0, Home)".
void addKeysToToolTips(const QList<QAction*>& actions);

// A list of every action with a key, grouped by its menu.
class ShortcutsOverlay : public QDialog {
    Q_OBJECT
public:
    explicit ShortcutsOverlay(QWidget& window);
    QTreeWidget* list() const { return m_list; }

private:
    QTreeWidget* m_list;
};

// Type to filter the actions by name, Enter runs the first (or the selected) one.
class CommandPalette : public QDialog {
    Q_OBJECT
public:
    explicit CommandPalette(QWidget& window);
    QLineEdit* filter() const { return m_filter; }
    QListWidget* list() const { return m_list; }

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    void refill(const QString& text);
    void runCurrent();

    QWidget& m_window;
    QLineEdit* m_filter;
    QListWidget* m_list;
};

// Help ▸ Keyboard Shortcuts (`?`) and Command Palette (Ctrl+Shift+P) in `help`; tooltips
// with keys for every action the window has now.
void installShortcutsHelp(QWidget& window, QMenu& help);

} // namespace ks
