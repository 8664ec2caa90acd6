#include "widgets/criticalpathbreakdownmodel.h"

#include "core/model/time.h"

namespace ks {

void CriticalPathBreakdownModel::setStep(const analysis::StepCriticalPath& step)
{
    beginResetModel();
    m_time = step.path.breakdown;
    m_length = step.path.length;
    m_whatIf.reset();
    if (step.whatIf)
        m_whatIf = step.whatIf->breakdown;
    endResetModel();
}

void CriticalPathBreakdownModel::clear() { setStep({}); }

int CriticalPathBreakdownModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || m_length == 0 ? 0 : analysis::kPathKindCount;
}

int CriticalPathBreakdownModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CriticalPathBreakdownModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= analysis::kPathKindCount)
        return {};
    const auto row = std::size_t(index.row());
    if (role == Qt::TextAlignmentRole)
        return index.column() != CategoryColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case CategoryColumn: return QString::fromUtf8(analysis::pathKindName(analysis::PathKind(row)).data());
    case TimeColumn: return QString::fromStdString(formatDuration(m_time[row]));
    case ShareColumn:
        return QStringLiteral("%1 %").arg(m_length ? 100.0 * double(m_time[row]) / double(m_length) : 0.0, 0, 'f', 1);
    case WhatIfColumn: return m_whatIf ? QString::fromStdString(formatDuration((*m_whatIf)[row])) : QString();
    default: return {};
    }
}

QVariant CriticalPathBreakdownModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case CategoryColumn: return tr("Category");
    case TimeColumn: return tr("On path");
    case ShareColumn: return tr("Share");
    case WhatIfColumn: return tr("What-if");
    default: return {};
    }
}

} // namespace ks
