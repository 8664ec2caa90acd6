#pragma once
// The Operators table: torch's key_averages() columns, plus memory columns when the trace
// has [memory] events, the plugin's "Tensor Cores Used" when it has kernels, the FLOP
// columns (GFLOPs, TFLOP/s, % of peak, FLOPs/byte, bound: docs/roofline.md) when asked and
// its ops have shapes, and an Input Shapes column when grouped by shapes.
#include "core/analysis/opcosts.h"
#include "core/stats/operatortable.h"
#include "widgets/statstablemodel.h"

#include <memory>

namespace ks {

class OperatorTableModel : public StatsTableModel {
    Q_OBJECT
public:
    enum Column {
        Name,
        Side,
        SelfCpuPct,
        SelfCpu,
        CpuTotalPct,
        CpuTotal,
        CpuAverage,
        SelfDevice,
        SelfDevicePct,
        DeviceTotal,
        DeviceAverage,
        CpuMemory,
        SelfCpuMemory,
        DeviceMemory,
        SelfDeviceMemory,
        Calls,
        Gflops,
        TflopsPerS,
        PeakPct,
        FlopsPerByte,
        Bound,
        TensorCores,
        InputShapes,
        ColumnCount
    };

    explicit OperatorTableModel(QObject* parent = nullptr);

    void setGroupByInputShapes(bool group);
    bool groupByInputShapes() const { return m_groupByShapes; }
    void setShowFlops(bool show); // the FLOP columns (an option, off by default)
    const OperatorTable& table() const { return m_table; }
    // `roofline`: one per row (or none); `peaks` what its fractions were taken against.
    void setTable(OperatorTable table, std::vector<analysis::RowRoofline> roofline = {},
                  analysis::DevicePeaks peaks = {});
    const std::vector<analysis::RowRoofline>& roofline() const { return m_roofline; }

    std::function<Installer()> rowsJob(std::shared_ptr<const Trace> trace,
                                       std::optional<TimeRange> range) const override;
    const std::vector<SliceId>& occurrences(int row) const override;
    int defaultSortColumn() const override;
    QString emptyText() const override
    {
        return tr("No operators in this trace (no cpu_op or user_annotation events).");
    }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The Column shown at a view column: memory columns only with [memory] events, Tensor
    // Cores only with kernels, Input Shapes only when grouped by shapes.
    Column columnAt(int visibleColumn) const { return m_columns[visibleColumn]; }
    int visibleColumn(Column column) const; // -1 when hidden

private:
    QString peakToolTip(const analysis::RowRoofline& f) const;

    OperatorTable m_table;
    std::vector<analysis::RowRoofline> m_roofline;
    analysis::DevicePeaks m_peaks;
    // The FLOP costs of the trace's ops: read once per trace, shared by every table of it.
    mutable std::weak_ptr<const Trace> m_costsTrace;
    mutable std::shared_ptr<std::shared_ptr<const analysis::OpCosts>> m_costs =
        std::make_shared<std::shared_ptr<const analysis::OpCosts>>();
    bool m_groupByShapes = false;
    bool m_flops = false;
    std::vector<Column> m_columns;
};

} // namespace ks
