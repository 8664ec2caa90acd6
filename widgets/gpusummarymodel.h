#pragma once
// One row per GPU: name, memory, compute capability, and GPU Utilization, Est. SM
// Efficiency, Est. Achieved Occupancy over the plugin's steps window (TensorBoard's
// numbers) and over the timeline's current visible range.
#include "core/gpu/gpureport.h"

#include <QAbstractTableModel>

#include <memory>

namespace ks {

class GpuSummaryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Gpu,
        Name,
        Memory,
        ComputeCapability,
        Utilization,
        SmEfficiency,
        Occupancy,
        RangeUtilization,
        RangeSmEfficiency,
        RangeOccupancy,
        ColumnCount
    };

    explicit GpuSummaryModel(QObject* parent = nullptr);
    void setReport(std::shared_ptr<const gpu::GpuReport> report);
    void setRange(TimeNs start, TimeNs end);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const gpu::GpuReport> m_report;
    std::vector<gpu::RangeMetrics> m_range; // per row
};

} // namespace ks
