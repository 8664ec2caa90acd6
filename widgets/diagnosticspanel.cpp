#include "widgets/diagnosticspanel.h"

#include <QHeaderView>
#include <QLocale>

namespace ks {

namespace {

QString severityText(Diagnostic::Severity severity)
{
    switch (severity) {
    case Diagnostic::Severity::Error: return DiagnosticsPanel::tr("error");
    case Diagnostic::Severity::Info: return DiagnosticsPanel::tr("info");
    case Diagnostic::Severity::Warning: break;
    }
    return DiagnosticsPanel::tr("warning");
}

} // namespace

DiagnosticsPanel::DiagnosticsPanel(QWidget* parent)
    : QTreeWidget(parent)
{
    setColumnCount(4);
    setHeaderLabels({tr("Count"), tr("Severity"), tr("Kind"), tr("Message")});
    for (int column = 0; column < 3; ++column)
        header()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
}

void DiagnosticsPanel::clearDiagnostics()
{
    clear();
    m_warnings = m_info = 0;
}

void DiagnosticsPanel::setDiagnostics(const Diagnostics& diagnostics)
{
    clearDiagnostics();
    m_warnings = diagnostics.warningCount();
    m_info = diagnostics.infoCount();
    // Warnings and errors first, information last; codes alphabetical within each.
    for (const bool info : {false, true}) {
        for (const auto& [code, count] : diagnostics.counts()) {
            const Diagnostic::Severity severity = diagnostics.severityOf(code);
            if ((severity == Diagnostic::Severity::Info) != info)
                continue;
            auto* group = new QTreeWidgetItem(this);
            group->setText(0, QLocale().toString(qulonglong(count)));
            group->setText(1, severityText(severity));
            group->setText(2, QString::fromStdString(code));
            int shown = 0;
            for (const Diagnostic& d : diagnostics.items()) {
                if (d.code != code)
                    continue;
                const QString text = QString::fromStdString(d.located());
                if (shown == 0) {
                    group->setText(3, text);
                    group->setToolTip(3, text);
                }
                if (shown == kExamplesPerKind)
                    break;
                auto* item = new QTreeWidgetItem(group);
                item->setText(3, text);
                item->setToolTip(3, text);
                ++shown;
            }
            if (count > std::uint64_t(shown)) {
                auto* more = new QTreeWidgetItem(group);
                more->setText(3, tr("… and %L1 more").arg(count - std::uint64_t(shown)));
                more->setDisabled(true);
            }
        }
    }
}

QString DiagnosticsPanel::summaryText() const
{
    if (m_warnings > 0)
        return tr("⚠ %Ln warning(s)", nullptr, qlonglong(m_warnings));
    if (m_info > 0)
        return tr("ℹ %L1 info", nullptr).arg(m_info);
    return {};
}

} // namespace ks
