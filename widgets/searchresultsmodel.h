#pragma once
// The search results as a table to jump from: name, track, start (from the trace start)
// and duration of each matching slice, in time order. Cells are made on demand, so a
// search with a million matches costs one vector.
#include "core/model/trace.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace ks {

class SearchResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Track, Start, Duration, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;
    void setResults(std::shared_ptr<const Trace> trace, std::vector<SliceId> slices);
    SliceId sliceAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const Trace> m_trace;
    std::vector<SliceId> m_slices;
};

} // namespace ks
