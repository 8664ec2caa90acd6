#include "app/shortcutshelp.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace ks {

namespace {

constexpr int kActionRole = Qt::UserRole + 1;

QString keysText(const QAction& action)
{
    QStringList keys;
    for (const QKeySequence& key : action.shortcuts())
        keys << key.toString(QKeySequence::NativeText);
    return keys.join(QStringLiteral(", "));
}

// Where the action lives: its top menu ("View") in menu bar order, else its dock ("Details")
// after the menus.
std::pair<int, QString> actionGroup(const QAction& action)
{
    for (QObject* object : action.associatedObjects()) {
        auto* menu = qobject_cast<QMenu*>(object);
        if (!menu)
            continue;
        while (auto* parentMenu = qobject_cast<QMenu*>(menu->parentWidget()))
            menu = parentMenu;
        const auto* bar = qobject_cast<QMenuBar*>(menu->parentWidget());
        return {bar ? int(bar->actions().indexOf(menu->menuAction())) : 0, menu->title().remove(QLatin1Char('&'))};
    }
    for (QObject* object = action.parent(); object; object = object->parent()) {
        if (auto* dock = qobject_cast<QDockWidget*>(object))
            return {1000, dock->windowTitle()};
    }
    return {2000, ShortcutsOverlay::tr("Other")};
}

} // namespace

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
        const QString keys = keysText(*action);
        if (!keys.isEmpty() && !action->toolTip().endsWith(QLatin1Char(')')))
            action->setToolTip(QStringLiteral("%1 (%2)").arg(action->toolTip(), keys));
    }
}

ShortcutsOverlay::ShortcutsOverlay(QWidget& window)
    : QDialog(&window)
    , m_list(new QTreeWidget(this))
{
    setWindowTitle(tr("Keyboard Shortcuts"));
    m_list->setColumnCount(2);
    m_list->setHeaderLabels({tr("Action"), tr("Keys")});
    m_list->setRootIsDecorated(false);
    m_list->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    QList<QAction*> actions = actionsWithKeys(window);
    std::stable_sort(actions.begin(), actions.end(),
                     [](QAction* a, QAction* b) { return actionGroup(*a) < actionGroup(*b); });
    QString group;
    for (QAction* action : actions) {
        if (actionGroup(*action).second != group) {
            group = actionGroup(*action).second;
            auto* heading = new QTreeWidgetItem(m_list, {group});
            QFont bold = heading->font(0);
            bold.setBold(true);
            heading->setFont(0, bold);
            heading->setFirstColumnSpanned(true);
        }
        auto* item = new QTreeWidgetItem(m_list, {actionLabel(*action), keysText(*action)});
        item->setData(0, kActionRole, QVariant::fromValue(static_cast<QObject*>(action)));
    }
    auto* mouse = new QLabel(tr("Mouse: wheel over the time area (Ctrl+wheel anywhere) zooms at the cursor, "
                                "drag pans, wheel over the track labels or Shift+wheel scrolls the tracks, "
                                "Shift+drag or a drag on the ruler selects a time range, click selects a slice "
                                "or an instant's tick (a [memory] sample), a click on a group's or a counter "
                                "track's label folds it, right-click a label for the track layout."),
                             this);
    mouse->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_list, 1);
    layout->addWidget(mouse);
    layout->addWidget(buttons);
    const QFontMetrics metrics(font());
    resize(metrics.averageCharWidth() * 60, std::min(window.height() * 4 / 5, metrics.height() * 36));
}

CommandPalette::CommandPalette(QWidget& window)
    : QDialog(&window)
    , m_window(window)
    , m_filter(new QLineEdit(this))
    , m_list(new QListWidget(this))
{
    setWindowTitle(tr("Command Palette"));
    m_filter->setPlaceholderText(tr("Type an action's name…"));
    m_filter->setClearButtonEnabled(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_filter);
    layout->addWidget(m_list, 1);
    connect(m_filter, &QLineEdit::textChanged, this, &CommandPalette::refill);
    connect(m_filter, &QLineEdit::returnPressed, this, &CommandPalette::runCurrent);
    connect(m_list, &QListWidget::itemActivated, this, &CommandPalette::runCurrent);
    const QFontMetrics metrics(font());
    resize(metrics.averageCharWidth() * 60, metrics.height() * 20);
    refill(QString());
}

void CommandPalette::refill(const QString& text)
{
    m_list->clear();
    for (QAction* action : namedActions(m_window)) {
        const QString label = actionLabel(*action);
        if (!action->isEnabled() || !label.contains(text, Qt::CaseInsensitive))
            continue;
        const QString keys = keysText(*action);
        auto* item = new QListWidgetItem(keys.isEmpty() ? label : tr("%1    %2").arg(label, keys), m_list);
        item->setData(kActionRole, QVariant::fromValue(static_cast<QObject*>(action)));
    }
    m_list->setCurrentRow(0);
}

// The filter ignores Up/Down: they reach the dialog and move through the list.
void CommandPalette::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Up || event->key() == Qt::Key_Down) {
        const int step = event->key() == Qt::Key_Up ? -1 : 1;
        m_list->setCurrentRow(std::clamp(m_list->currentRow() + step, 0, std::max(0, m_list->count() - 1)));
        return;
    }
    QDialog::keyPressEvent(event);
}

void CommandPalette::runCurrent()
{
    QListWidgetItem* item = m_list->currentItem();
    auto* action = item ? qobject_cast<QAction*>(item->data(kActionRole).value<QObject*>()) : nullptr;
    accept();
    if (action)
        action->trigger();
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
