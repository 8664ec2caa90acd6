#include "widgets/operatormemorymodel.h"

#include <QLocale>

namespace ks {

namespace {

QString megabytes(std::int64_t bytes) { return QLocale().toString(double(bytes) / 1e6, 'f', 3); }

} // namespace

void OperatorMemoryModel::setTable(analysis::OperatorMemoryTable table)
{
    beginResetModel();
    m_table = std::move(table);
    endResetModel();
}

int OperatorMemoryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_table.rows.size());
}

int OperatorMemoryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant OperatorMemoryModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const analysis::OperatorMemoryRow& row = m_table.rows[std::size_t(index.row())];
    if (role == kSortRole) {
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(row.name);
        case CallsColumn: return qulonglong(row.calls);
        case SizeIncreaseColumn: return qlonglong(row.sizeIncrease);
        case SelfSizeIncreaseColumn: return qlonglong(row.selfSizeIncrease);
        case AllocationCountColumn: return qulonglong(row.allocationCount);
        case SelfAllocationCountColumn: return qulonglong(row.selfAllocationCount);
        case AllocationSizeColumn: return qlonglong(row.allocationSize);
        case SelfAllocationSizeColumn: return qlonglong(row.selfAllocationSize);
        default: return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(row.name);
        case CallsColumn: return QLocale().toString(qulonglong(row.calls));
        case SizeIncreaseColumn: return megabytes(row.sizeIncrease);
        case SelfSizeIncreaseColumn: return megabytes(row.selfSizeIncrease);
        case AllocationCountColumn: return QLocale().toString(qulonglong(row.allocationCount));
        case SelfAllocationCountColumn: return QLocale().toString(qulonglong(row.selfAllocationCount));
        case AllocationSizeColumn: return megabytes(row.allocationSize);
        case SelfAllocationSizeColumn: return megabytes(row.selfAllocationSize);
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != NameColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant OperatorMemoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case CallsColumn: return tr("Calls");
    case SizeIncreaseColumn: return tr("Size Increase (MB)");
    case SelfSizeIncreaseColumn: return tr("Self Size Increase (MB)");
    case AllocationCountColumn: return tr("Allocation Count");
    case SelfAllocationCountColumn: return tr("Self Allocation Count");
    case AllocationSizeColumn: return tr("Allocation Size (MB)");
    case SelfAllocationSizeColumn: return tr("Self Allocation Size (MB)");
    default: return {};
    }
}

} // namespace ks
