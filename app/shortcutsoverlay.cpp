#include "app/shortcutsoverlay.h"

#include "app/shortcutshelp.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace ks {

namespace {

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
        auto* item = new QTreeWidgetItem(m_list, {actionLabel(*action), actionKeysText(*action)});
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

} // namespace ks
