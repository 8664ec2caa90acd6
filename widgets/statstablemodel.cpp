#include "widgets/statstablemodel.h"

#include <QAction>

namespace ks {

void StatsTableModel::addOption(const QString& text, const QString& toolTip, std::function<void(bool)> apply)
{
    auto* action = new QAction(text, this);
    action->setToolTip(toolTip);
    action->setCheckable(true);
    connect(action, &QAction::toggled, this, [this, apply = std::move(apply)](bool on) {
        apply(on);
        Q_EMIT recomputeNeeded();
    });
    m_options << action;
}

} // namespace ks
