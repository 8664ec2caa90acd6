#pragma once
// The Kernels table, like TensorBoard's Kernel view: per kernel name, calls, durations,
// mean blocks per SM, mean estimated achieved occupancy and the launch configuration.
#include "core/stats/kernelstats.h"
#include "widgets/statstablemodel.h"

namespace ks {

class KernelTableModel : public StatsTableModel {
    Q_OBJECT
public:
    enum Column {
        Name,
        Operator,
        Calls,
        Total,
        Mean,
        Min,
        Max,
        BlocksPerSm,
        Occupancy,
        Grid,
        Block,
        Registers,
        SharedMemory,
        ColumnCount
    };

    explicit KernelTableModel(QObject* parent = nullptr);

    // TensorBoard's "Kernel Properties + Op Name": adds the Operator column.
    void setGroupByOperatorAndLaunchConfig(bool group);
    bool groupByOperatorAndLaunchConfig() const { return m_groupByOperator; }
    void setRows(std::vector<KernelRow> rows);
    Column columnAt(int visibleColumn) const { return m_columns[visibleColumn]; }
    int visibleColumn(Column column) const; // -1 when hidden
    const std::vector<KernelRow>& rows() const { return m_rows; }

    std::function<Installer()> rowsJob(std::shared_ptr<const Trace> trace,
                                       std::optional<TimeRange> range) const override;
    const std::vector<SliceId>& occurrences(int row) const override;
    int defaultSortColumn() const override { return visibleColumn(Total); }
    QString emptyText() const override
    {
        return tr("No GPU kernels in this trace (it was recorded without CUDA activities).");
    }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<KernelRow> m_rows;
    bool m_groupByOperator = false;
    std::vector<Column> m_columns;
};

} // namespace ks
