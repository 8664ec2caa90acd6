#include "widgets/diagnosticspanel.h"

#include <QHeaderView>

namespace ks {

DiagnosticsPanel::DiagnosticsPanel(QWidget* parent)
    : QTreeWidget(parent)
{
    setColumnCount(3);
    setHeaderLabels({tr("Count"), tr("Kind"), tr("Message")});
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
}

void DiagnosticsPanel::setDiagnostics(const Diagnostics& diagnostics)
{
    clear();
    for (const auto& [code, count] : diagnostics.counts()) {
        auto* group = new QTreeWidgetItem(this);
        group->setText(0, QString::number(count));
        group->setText(1, QString::fromStdString(code));
        for (const Diagnostic& d : diagnostics.items()) {
            if (d.code != code)
                continue;
            if (group->text(2).isEmpty())
                group->setText(2, QString::fromStdString(d.located()));
            auto* item = new QTreeWidgetItem(group);
            item->setText(1, d.severity == Diagnostic::Severity::Error ? tr("error") : tr("warning"));
            item->setText(2, QString::fromStdString(d.located()));
        }
    }
}

} // namespace ks
