#include "widgets/opstablemodel.h"

#include "core/facts/tracefacts.h"

#include "widgets/peaksettings.h"
#include "widgets/statsformat.h"

#include <QAction>

#include <algorithm>

namespace ks {

OperatorTableModel::OperatorTableModel(QObject* parent)
    : StatsTableModel(parent)
{
    addOption(tr("Group by input shapes"), tr("One row per name and input shapes (traces recorded with record_shapes)"),
              [this](bool on) { m_groupByShapes = on; });
    // Off by default: reading every op's shapes back costs a pass over the trace's text and
    // its memory for a moment, which a plain look at the table should not pay.
    addOption(tr("FLOPs and % of peak"),
              tr("GFLOPs, TFLOP/s, % of the GPU's peak, FLOPs/byte and bound per row, from the ops' recorded "
                 "shapes (docs/roofline.md)"),
              [this](bool on) { m_flops = on; });
    setTable({});
}

void OperatorTableModel::setGroupByInputShapes(bool group) { options().front()->setChecked(group); }

void OperatorTableModel::setShowFlops(bool show) { options().at(1)->setChecked(show); }

void OperatorTableModel::setTable(OperatorTable table, std::vector<analysis::RowRoofline> roofline,
                                  analysis::DevicePeaks peaks)
{
    beginResetModel();
    m_table = std::move(table);
    m_roofline = std::move(roofline);
    m_roofline.resize(m_table.rows.size());
    m_peaks = std::move(peaks);
    m_columns.clear();
    const bool hasKernels =
        std::any_of(m_table.rows.begin(), m_table.rows.end(), [](const OperatorRow& row) { return row.kernels > 0; });
    const bool hasFlops =
        std::any_of(m_roofline.begin(), m_roofline.end(), [](const analysis::RowRoofline& f) { return f.hasFlops(); });
    for (int c = 0; c < ColumnCount; ++c) {
        const bool memory = c >= CpuMemory && c <= SelfDeviceMemory;
        const bool flops = c >= Gflops && c <= Bound;
        if ((memory && !m_table.hasMemory) || (c == InputShapes && !m_groupByShapes)
            || (c == TensorCores && !hasKernels) || (flops && !hasFlops))
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
    // The costs of this trace's ops when an earlier job read them, else this job reads them.
    if (m_costsTrace.lock() != trace) {
        *m_costs = nullptr;
        m_costsTrace = trace;
    }
    const auto costsSlot = m_costs;
    const auto costs = *m_costs;
    const auto overrides = PeakSettings::load().overrides();
    return [trace, options, costsSlot, costs, overrides, withFlops = m_flops]() -> Installer {
        if (!trace)
            return [](StatsTableModel& model) { static_cast<OperatorTableModel&>(model).setTable({}); };
        auto table = std::make_shared<OperatorTable>(computeOperatorTable(*facts::sharedTraceFacts(trace), options));
        if (!withFlops)
            return [table](StatsTableModel& model) {
                static_cast<OperatorTableModel&>(model).setTable(std::move(*table));
            };
        auto readCosts = costs ? costs : std::make_shared<const analysis::OpCosts>(analysis::OpCosts::ofTrace(*trace));
        auto peaks = std::make_shared<analysis::DevicePeaks>(analysis::resolveDevicePeaks(*trace, overrides));
        auto roofline = std::make_shared<std::vector<analysis::RowRoofline>>();
        roofline->reserve(table->rows.size());
        for (const OperatorRow& row : table->rows)
            roofline->push_back(analysis::rooflineOfRow(row, *readCosts, *peaks));
        return [table, roofline, peaks, costsSlot, readCosts](StatsTableModel& model) {
            *costsSlot = readCosts; // GUI thread: the next table of this trace reuses them
            static_cast<OperatorTableModel&>(model).setTable(std::move(*table), std::move(*roofline),
                                                             std::move(*peaks));
        };
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
    const analysis::RowRoofline& f = m_roofline[std::size_t(index.row())];
    if (role == Qt::ToolTipRole && column >= Gflops && column <= Bound)
        return peakToolTip(f);
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
    case Gflops:
        if (!f.flops)
            return sort ? QVariant(-1.0) : QVariant(QStringLiteral("-"));
        return sort ? QVariant(double(*f.flops)) : QVariant(QString::number(double(*f.flops) * 1e-9, 'f', 3));
    case TflopsPerS:
        return sort ? QVariant(f.tflopsPerS.value_or(-1.0))
                    : QVariant(f.tflopsPerS ? QString::number(*f.tflopsPerS, 'f', 2) : QStringLiteral("-"));
    case PeakPct:
        return sort ? QVariant(f.peakFraction.value_or(-1.0))
                    : QVariant(f.peakFraction ? QString::number(100.0 * *f.peakFraction, 'f', 1) + QStringLiteral(" %")
                                              : QStringLiteral("-"));
    case FlopsPerByte:
        return sort ? QVariant(f.flopsPerByte.value_or(-1.0))
                    : QVariant(f.flopsPerByte ? QString::number(*f.flopsPerByte, 'f', 1) : QStringLiteral("-"));
    case Bound:
        if (f.bound == analysis::Bound::Unknown)
            return sort ? QVariant(QString()) : QVariant(QStringLiteral("-"));
        return f.bound == analysis::Bound::Compute ? tr("compute") : tr("memory");
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
    case Gflops: return tr("GFLOPs");
    case TflopsPerS: return tr("TFLOP/s");
    case PeakPct: return tr("% of peak");
    case FlopsPerByte: return tr("FLOPs/byte");
    case Bound: return tr("Bound");
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

// Which roof the row was held against, and why a row has no figures.
QString OperatorTableModel::peakToolTip(const analysis::RowRoofline& f) const
{
    if (f.rule == analysis::CostRule::None)
        return tr("No FLOP rule for this op (docs/roofline.md)");
    if (!f.flops)
        return tr("No count: %1").arg(QString::fromStdString(f.unknownReason));
    QString text = tr("%1 rule: %2 FLOPs, %3 bytes")
                       .arg(QString::fromStdString(std::string(analysis::costRuleName(f.rule))))
                       .arg(double(*f.flops), 0, 'g', 4)
                       .arg(f.bytes ? QString::number(double(*f.bytes), 'g', 4) : QStringLiteral("?"));
    if (f.composite)
        text += tr("\nComposite: its child ops carry the same FLOPs");
    if (f.peakKind) {
        const auto peak = m_peaks.peakTflops(*f.peakKind);
        text += tr("\nRoof: %1 of %2, %3")
                    .arg(QString::fromStdString(std::string(analysis::peakKindName(*f.peakKind))),
                         QString::fromStdString(m_peaks.name.empty() ? std::string("an unknown GPU") : m_peaks.name),
                         peak ? tr("%1 TFLOP/s").arg(*peak) : tr("not known (set it in the Roofline dock)"));
    }
    if (f.tf32PeakFraction)
        text += tr("\n%1 % of the TF32 roof").arg(100.0 * *f.tf32PeakFraction, 0, 'f', 1);
    if (f.tbPerS)
        text += tr("\nMemory: %1 TB/s").arg(*f.tbPerS, 0, 'f', 3);
    return text;
}

} // namespace ks
