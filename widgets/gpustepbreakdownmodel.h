#pragma once
// The step-time breakdown as a table: one row per ProfilerStep plus the average, one
// column per role (Kernel ... Other) as "µs (percent)". Qt::UserRole gives the number in ns.
#include "core/gpu/gpureport.h"

#include <QAbstractTableModel>

#include <memory>

namespace ks {

class GpuStepBreakdownModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Step, Total, FirstRole, ColumnCount = FirstRole + int(gpu::kStepRoleCount) };

    explicit GpuStepBreakdownModel(QObject* parent = nullptr);
    void setReport(std::shared_ptr<const gpu::GpuReport> report);
    // The step of a row (the average row spans all steps); null when out of range.
    const gpu::StepBreakdownRow* stepRow(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const gpu::GpuReport> m_report;
};

} // namespace ks
