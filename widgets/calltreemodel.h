#pragma once
// The call tree beside the flame graph: a tree model over FlameGraphData. Columns: Frame,
// Calls, CPU total, CPU self, GPU total, GPU self; for a diff: Frame, BASE, NEW, Δ (per step)
// and Δ %. SortRole gives numbers for sorting (QSortFilterProxyModel). GUI thread only.
#include "widgets/flamegraphdata.h"

#include <QAbstractItemModel>

#include <memory>

namespace ks {

class CallTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int NodeRole = Qt::UserRole + 1;

    explicit CallTreeModel(QObject* parent = nullptr);

    void setData(std::shared_ptr<const FlameGraphData> data);
    const FlameGraphData* flameData() const { return m_data.get(); }
    std::uint32_t nodeOf(const QModelIndex& index) const;
    QModelIndex indexOf(std::uint32_t node) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const FlameGraphData> m_data;
};

} // namespace ks
