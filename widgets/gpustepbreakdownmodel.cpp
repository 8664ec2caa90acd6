#include "widgets/gpustepbreakdownmodel.h"

#include <cmath>

namespace ks {

GpuStepBreakdownModel::GpuStepBreakdownModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void GpuStepBreakdownModel::setReport(std::shared_ptr<const gpu::GpuReport> report)
{
    beginResetModel();
    m_report = std::move(report);
    endResetModel();
}

const gpu::StepBreakdownRow* GpuStepBreakdownModel::stepRow(int row) const
{
    if (!m_report || row < 0 || row >= rowCount())
        return nullptr;
    const auto& steps = m_report->breakdown.steps;
    return std::size_t(row) < steps.size() ? &steps[std::size_t(row)] : &m_report->breakdown.average;
}

int GpuStepBreakdownModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !m_report || m_report->breakdown.steps.empty())
        return 0;
    return int(m_report->breakdown.steps.size()) + 1; // + the average
}

int GpuStepBreakdownModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant GpuStepBreakdownModel::data(const QModelIndex& index, int role) const
{
    const gpu::StepBreakdownRow* row = index.isValid() ? stepRow(index.row()) : nullptr;
    if (!row || (role != Qt::DisplayRole && role != Qt::UserRole))
        return {};
    if (index.column() == Step) {
        if (std::size_t(index.row()) == m_report->breakdown.steps.size())
            return tr("Average");
        return QString::fromStdString(row->name);
    }
    if (index.column() == Total)
        return role == Qt::UserRole ? QVariant(row->total) : QVariant(QString::number(std::round(row->total / 1000.0)));
    const auto r = gpu::StepRole(index.column() - FirstRole);
    const double ns = row->parts[std::size_t(r)];
    if (role == Qt::UserRole)
        return ns;
    return QStringLiteral("%1 (%2 %)").arg(std::round(ns / 1000.0)).arg(row->percent(r), 0, 'f', 2);
}

QVariant GpuStepBreakdownModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    if (section == Step)
        return tr("Step");
    if (section == Total)
        return tr("Total (µs)");
    if (section < ColumnCount)
        return tr("%1 (µs)").arg(QString::fromLatin1(gpu::stepRoleName(gpu::StepRole(section - FirstRole)).data()));
    return {};
}

} // namespace ks
