#pragma once
// The Critical Path dock's breakdown: the path's time per category (cpu_op, launch, kernel,
// ...), its share of the step and, with what-ifs, the category's time on the re-solved path.
#include "core/analysis/criticalpath.h"

#include <QAbstractTableModel>

#include <optional>

namespace ks {

class CriticalPathBreakdownModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { CategoryColumn, TimeColumn, ShareColumn, WhatIfColumn, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    void setStep(const analysis::StepCriticalPath& step);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::array<TimeNs, analysis::kPathKindCount> m_time{};
    std::optional<std::array<TimeNs, analysis::kPathKindCount>> m_whatIf;
    TimeNs m_length = 0;
};

} // namespace ks
