#include "app/commandpalette.h"

#include "app/shortcutshelp.h"

#include <QAction>
#include <QKeyEvent>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace ks {

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
        const QString keys = actionKeysText(*action);
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

} // namespace ks
