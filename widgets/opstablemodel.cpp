#include "widgets/opstablemodel.h"

#include "core/facts/tracefacts.h"

#include "widgets/statsformat.h"

#include <QAction>

#include <algorithm>

namespace ks {

OperatorTableModel::OperatorTableModel(QObject* parent)
    : StatsTableModel(parent)
{
    addOption(tr("Group by input shapes"), tr("One row per name and input shapes (traces recorded with record_shapes)"),
              [this](bool on) { m_groupByShapes = on; });
    setTable({});
}

void OperatorTableModel::setGroupByInputShapes(bool group) { options().front()->setChecked(group); }

void OperatorTableModel::setTable(OperatorTable table)
{
    beginResetModel();
    m_table = std::move(table);
    m_columns.clear();
    const bool hasKernels =
        std::any_of(m_table.rows.begin(), m_table.rows.end(), [](const OperatorRow& row) { return row.kernels > 0; });
    for (int c = 0; c < ColumnCount; ++c) {
        const bool memory = c >= CpuMemory && c <= SelfDeviceMemory;
        if ((memory && !m_table.hasMemory) || (c == InputShapes && !m_groupByShapes)
            || (c == TensorCores && !hasKernels))
            continue;
        m_columns.push_back(Column(c));
    }
    endResetModel();
}

std::function<StatsTableModel::Installer()> OperatorTableModel::rowsJob(std::shared_ptr<const Trace> trace,
                                                                        std::optional<TimeRange> range) const
{
    OperatorTableOptions options;
    options.groupByInputShapes = m_groupByShapes;
    if (range) {
        options.rangeStart = range->from;
        options.rangeEnd = range->to;
    }
    return [trace, options]() -> Installer {
        auto table = std::make_shared<OperatorTable>(
            trace ? computeOperatorTable(*facts::sharedTraceFacts(trace), options) : OperatorTable{});
        return [table](StatsTableModel& model) { static_cast<OperatorTableModel&>(model).setTable(std::move(*table)); };
    };
}

const std::vector<SliceId>& OperatorTableModel::occurrences(int row) const { return m_table.rows[row].slices; }

int OperatorTableModel::defaultSortColumn() const
{
    // torch's tables are usually sorted by CUDA total; CPU total when there is no GPU.
    return visibleColumn(m_table.hasDeviceTime ? DeviceTotal : CpuTotal);
}

int OperatorTableModel::visibleColumn(Column column) const
{
    const auto it = std::find(m_columns.begin(), m_columns.end(), column);
    return it == m_columns.end() ? -1 : int(it - m_columns.begin());
}

int OperatorTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_table.rows.size());
}

int OperatorTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant OperatorTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const OperatorRow& r = m_table.rows[index.row()];
    const Column column = columnAt(index.column());
    if (role == Qt::TextAlignmentRole)
        return column == Name || column == InputShapes || column == Side ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                                         : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && column == Name)
        return QString::fromStdString(r.name);
    if (role == Qt::ToolTipRole && column == TensorCores && r.kernels > 0)
        return tr("%1 of %n kernel launch(es) counted in CUDA total use tensor cores (by kernel name)", nullptr,
                  int(r.kernels))
            .arg(r.tensorCoreKernels);
    if (role != Qt::DisplayRole && role != kSortRole)
        return {};
    const bool sort = role == kSortRole;
    const auto time = [&](TimeNs ns) { return sort ? QVariant(qint64(ns)) : QVariant(statsDuration(ns)); };
    const auto pct = [&](TimeNs part, TimeNs whole) {
        return sort ? QVariant(qint64(part)) : QVariant(statsPercent(part, whole));
    };
    const auto bytes = [&](std::int64_t b) { return sort ? QVariant(qint64(b)) : QVariant(statsBytes(b)); };
    switch (column) {
    case Name: return QString::fromStdString(r.name);
    case Side: return r.isDevice ? tr("GPU") : tr("CPU");
    case SelfCpuPct: return pct(r.selfCpu, m_table.selfCpuTotal);
    case SelfCpu: return time(r.selfCpu);
    case CpuTotalPct: return pct(r.cpuTotal, m_table.selfCpuTotal);
    case CpuTotal: return time(r.cpuTotal);
    case CpuAverage: return time(r.cpuAverage());
    case SelfDevice: return time(r.selfDevice);
    case SelfDevicePct: return pct(r.selfDevice, m_table.selfDeviceTotal);
    case DeviceTotal: return time(r.deviceTotal);
    case DeviceAverage: return time(r.deviceAverage());
    case Calls: return sort ? QVariant(qulonglong(r.calls)) : QVariant(QString::number(r.calls));
    case CpuMemory: return bytes(r.cpuMemory);
    case SelfCpuMemory: return bytes(r.selfCpuMemory);
    case DeviceMemory: return bytes(r.deviceMemory);
    case SelfDeviceMemory: return bytes(r.selfDeviceMemory);
    case TensorCores:
        if (sort)
            return r.kernels ? double(r.tensorCoreKernels) / double(r.kernels) : -1.0;
        return r.kernels == 0 ? QString() : r.tensorCoreKernels > 0 ? tr("Yes") : tr("No");
    case InputShapes: return QString::fromStdString(r.inputShapes);
    case ColumnCount: break;
    }
    return {};
}

QVariant OperatorTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return {};
    switch (columnAt(section)) {
    case Name: return tr("Name");
    case Side: return tr("Side");
    case SelfCpuPct: return tr("Self CPU %");
    case SelfCpu: return tr("Self CPU");
    case CpuTotalPct: return tr("CPU total %");
    case CpuTotal: return tr("CPU total");
    case CpuAverage: return tr("CPU time avg");
    case SelfDevice: return tr("Self CUDA");
    case SelfDevicePct: return tr("Self CUDA %");
    case DeviceTotal: return tr("CUDA total");
    case DeviceAverage: return tr("CUDA time avg");
    case Calls: return tr("# of Calls");
    case TensorCores: return tr("Tensor Cores Used");
    case CpuMemory: return tr("CPU Mem");
    case SelfCpuMemory: return tr("Self CPU Mem");
    case DeviceMemory: return tr("CUDA Mem");
    case SelfDeviceMemory: return tr("Self CUDA Mem");
    case InputShapes: return tr("Input Shapes");
    case ColumnCount: break;
    }
    return {};
}

} // namespace ks
