#pragma once
// The Critical Path dock's segment list: one row per segment of a step's path, in time order.
// Columns: kind, what (op, call or GPU op), start (from the step's start), duration, share.
#include "core/analysis/criticalpath.h"

#include <QAbstractTableModel>

namespace ks {

class CriticalPathSegmentsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { KindColumn, NameColumn, StartColumn, DurationColumn, ShareColumn, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    void setPath(analysis::CriticalPath path, TimeNs stepStart);
    const analysis::PathSegment* segmentAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    analysis::CriticalPath m_path;
    TimeNs m_stepStart = 0;
};

} // namespace ks
