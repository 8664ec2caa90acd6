#include "widgets/kerneltablemodel.h"

#include "widgets/statsformat.h"

#include <QAction>

#include <algorithm>

namespace ks {

namespace {

QString triple(const std::array<std::int32_t, 3>& v)
{
    return QStringLiteral("[%1, %2, %3]").arg(v[0]).arg(v[1]).arg(v[2]);
}

} // namespace

KernelTableModel::KernelTableModel(QObject* parent)
    : StatsTableModel(parent)
{
    addOption(tr("Group by operator and launch configuration"),
              tr("One row per kernel name, launching operator, grid, block, registers and shared memory"),
              [this](bool on) { m_groupByOperator = on; });
    setRows({});
}

void KernelTableModel::setGroupByOperatorAndLaunchConfig(bool group) { options().front()->setChecked(group); }

void KernelTableModel::setRows(std::vector<KernelRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_columns.clear();
    for (int c = 0; c < ColumnCount; ++c) {
        if (c != Operator || m_groupByOperator)
            m_columns.push_back(Column(c));
    }
    endResetModel();
}

int KernelTableModel::visibleColumn(Column column) const
{
    const auto it = std::find(m_columns.begin(), m_columns.end(), column);
    return it == m_columns.end() ? -1 : int(it - m_columns.begin());
}

std::function<StatsTableModel::Installer()> KernelTableModel::rowsJob(std::shared_ptr<const Trace> trace,
                                                                      std::optional<TimeRange> range) const
{
    KernelStatsOptions options;
    options.groupByOperatorAndLaunchConfig = m_groupByOperator;
    if (range) {
        options.rangeStart = range->from;
        options.rangeEnd = range->to;
    }
    return [trace, options]() -> Installer {
        auto rows = std::make_shared<std::vector<KernelRow>>(trace ? computeKernelStats(*trace, options)
                                                                   : std::vector<KernelRow>{});
        return [rows](StatsTableModel& model) { static_cast<KernelTableModel&>(model).setRows(std::move(*rows)); };
    };
}

const std::vector<SliceId>& KernelTableModel::occurrences(int row) const { return m_rows[row].slices; }

int KernelTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int KernelTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant KernelTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const KernelRow& r = m_rows[index.row()];
    const Column column = columnAt(index.column());
    if (role == Qt::TextAlignmentRole)
        return column == Name || column == Operator ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                    : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        if (column == Name)
            return QString::fromStdString(r.name);
        if (column >= Grid && r.launchConfigVaries)
            return tr("Later calls use other launch configurations; this is the first one.");
        return {};
    }
    if (role != Qt::DisplayRole && role != kSortRole)
        return {};
    const bool sort = role == kSortRole;
    const auto time = [&](TimeNs ns) { return sort ? QVariant(qint64(ns)) : QVariant(statsDuration(ns)); };
    const auto number = [&](double v) { return sort ? QVariant(v) : QVariant(QString::number(v, 'f', 2)); };
    const QString varies = r.launchConfigVaries ? QStringLiteral(" *") : QString();
    switch (column) {
    case Name: return QString::fromStdString(r.name);
    case Operator: return QString::fromStdString(r.operatorName);
    case Calls: return sort ? QVariant(qulonglong(r.calls)) : QVariant(QString::number(r.calls));
    case Total: return time(r.total);
    case Mean: return time(r.mean());
    case Min: return time(r.min);
    case Max: return time(r.max);
    case BlocksPerSm: return number(r.meanBlocksPerSm);
    case Occupancy: return number(r.meanEstAchievedOccupancyPct);
    case Grid: return triple(r.grid) + varies;
    case Block: return triple(r.block) + varies;
    case Registers: return sort ? QVariant(r.registersPerThread) : QVariant(QString::number(r.registersPerThread));
    case SharedMemory: return sort ? QVariant(qint64(r.sharedMemory)) : QVariant(statsBytes(r.sharedMemory));
    case ColumnCount: break;
    }
    return {};
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return {};
    switch (columnAt(section)) {
    case Name: return tr("Name");
    case Operator: return tr("Operator");
    case Calls: return tr("Calls");
    case Total: return tr("Total Duration");
    case Mean: return tr("Mean Duration");
    case Min: return tr("Min Duration");
    case Max: return tr("Max Duration");
    case BlocksPerSm: return tr("Mean Blocks per SM");
    case Occupancy: return tr("Mean Est. Achieved Occupancy (%)");
    case Grid: return tr("Grid");
    case Block: return tr("Block");
    case Registers: return tr("Registers per Thread");
    case SharedMemory: return tr("Shared Memory");
    case ColumnCount: break;
    }
    return {};
}

} // namespace ks
