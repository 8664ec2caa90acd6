#include "widgets/insightsmodel.h"

#include "widgets/statsformat.h"

#include <QBrush>
#include <QColor>

#include <cmath>

namespace ks {

void InsightsModel::setInsights(std::vector<analysis::Insight> insights)
{
    beginResetModel();
    m_insights = std::move(insights);
    endResetModel();
}

const analysis::Insight* InsightsModel::insightAt(int row) const
{
    return row >= 0 && std::size_t(row) < m_insights.size() ? &m_insights[std::size_t(row)] : nullptr;
}

int InsightsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_insights.size()); }

int InsightsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant InsightsModel::data(const QModelIndex& index, int role) const
{
    const analysis::Insight* insight = insightAt(index.row());
    if (!insight)
        return {};
    if (role == kIdRole)
        return QString::fromStdString(insight->id);
    if (role == Qt::TextAlignmentRole && index.column() != TitleColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == SeverityColumn) {
        switch (insight->severity) {
        case analysis::Severity::High: return QBrush(readableAccent(QColor(190, 30, 30)));
        case analysis::Severity::Medium: return QBrush(readableAccent(QColor(200, 120, 0)));
        case analysis::Severity::Low: return {}; // the palette's text colour, light or dark
        }
    }
    if (role == Qt::ToolTipRole)
        return QString::fromStdString(insight->id + ": " + insight->title);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case SeverityColumn:
        switch (insight->severity) {
        case analysis::Severity::High: return tr("high");
        case analysis::Severity::Medium: return tr("medium");
        case analysis::Severity::Low: return tr("low");
        }
        return {};
    case TitleColumn: return QString::fromStdString(insight->title);
    case TimeColumn: return QString::fromStdString(formatDuration(TimeNs(std::llround(insight->timeUs * 1000.0))));
    case ShareColumn: return QStringLiteral("%1 %").arg(insight->share * 100.0, 0, 'f', 1);
    case EvidenceColumn: return qulonglong(insight->evidence.size());
    default: return {};
    }
}

QVariant InsightsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeverityColumn: return tr("Severity");
    case TitleColumn: return tr("Finding");
    case TimeColumn: return tr("Time / step");
    case ShareColumn: return tr("Of step");
    case EvidenceColumn: return tr("Evidence");
    default: return {};
    }
}

} // namespace ks
