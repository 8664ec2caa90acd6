#pragma once
// The Operator memory table of one device (the TensorBoard plugin's columns), sizes in MB;
// sorting through a proxy on kSortRole (the numbers).
#include "core/analysis/memoryoptable.h"

#include <QAbstractTableModel>

namespace ks {

class OperatorMemoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        CallsColumn,
        SizeIncreaseColumn,
        SelfSizeIncreaseColumn,
        AllocationCountColumn,
        SelfAllocationCountColumn,
        AllocationSizeColumn,
        SelfAllocationSizeColumn,
        ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole;

    using QAbstractTableModel::QAbstractTableModel;

    void setTable(analysis::OperatorMemoryTable table);
    const analysis::OperatorMemoryTable& table() const { return m_table; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    analysis::OperatorMemoryTable m_table;
};

} // namespace ks
