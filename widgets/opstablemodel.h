#pragma once
// The Operators table: torch's key_averages() columns, plus memory columns when the trace
// has [memory] events, the plugin's "Tensor Cores Used" when it has kernels, and an Input
// Shapes column when grouped by shapes.
#include "core/stats/operatortable.h"
#include "widgets/statstablemodel.h"

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
        TensorCores,
        InputShapes,
        ColumnCount
    };

    explicit OperatorTableModel(QObject* parent = nullptr);

    void setGroupByInputShapes(bool group);
    bool groupByInputShapes() const { return m_groupByShapes; }
    const OperatorTable& table() const { return m_table; }
    void setTable(OperatorTable table);

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
    OperatorTable m_table;
    bool m_groupByShapes = false;
    std::vector<Column> m_columns;
};

} // namespace ks
