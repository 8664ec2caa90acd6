#include "widgets/liveallocationsmodel.h"

#include <QLocale>

namespace ks {

void LiveAllocationsModel::setTime(std::shared_ptr<const analysis::MemoryReport> report,
                                   const analysis::DeviceMemory* device, TimeNs time)
{
    auto live = report && device ? analysis::liveAllocationsAt(*report, *device, time) : std::vector<std::uint32_t>{};
    setRows(std::move(report), device, std::move(live), time);
}

void LiveAllocationsModel::setPeak(std::shared_ptr<const analysis::MemoryReport> report,
                                   const analysis::DeviceMemory* device)
{
    if (!report || !device || device->peakEvent == kNoIndex)
        return clear();
    auto live = analysis::liveAllocations(*device, device->peakEvent);
    const TimeNs time = device->peakTime;
    setRows(std::move(report), device, std::move(live), time);
}

void LiveAllocationsModel::clear() { setRows(nullptr, nullptr, {}, 0); }

void LiveAllocationsModel::setRows(std::shared_ptr<const analysis::MemoryReport> report,
                                   const analysis::DeviceMemory* device, std::vector<std::uint32_t> live, TimeNs time)
{
    beginResetModel();
    if (report != m_report) // a new report: its trace's frames are looked for once
        m_hasPythonStacks = report && analysis::hasPythonStacks(*report->facts->trace);
    m_report = std::move(report);
    m_device = m_report ? device : nullptr;
    m_live = m_device ? std::move(live) : std::vector<std::uint32_t>{};
    m_time = time;
    m_totalBytes = 0;
    for (const std::uint32_t i : m_live)
        m_totalBytes += m_device->allocations[i].bytes;
    endResetModel();
}

SliceId LiveAllocationsModel::opAt(int row) const
{
    return row >= 0 && row < rowCount() ? allocation(row).op : kNoSlice;
}

int LiveAllocationsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_live.size());
}

int LiveAllocationsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LiveAllocationsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const analysis::Allocation& a = allocation(index.row());
    const Trace& trace = *m_report->facts->trace;
    const TimeNs age = m_time - a.time;
    if (role == kSortRole) {
        switch (index.column()) {
        case SizeColumn: return qint64(a.bytes);
        case AgeColumn: return qint64(age);
        case AllocatedAtColumn: return qint64(a.time);
        default: break;
        }
        role = Qt::DisplayRole;
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case SizeColumn: return QLocale().formattedDataSize(a.bytes, 2, QLocale::DataSizeSIFormat);
        case OpColumn:
            return a.op == kNoSlice
                ? QString::fromUtf8(analysis::kUnknownOp.data(), qsizetype(analysis::kUnknownOp.size()))
                : QString::fromUtf8(trace.str(trace.slices().name[a.op]));
        case AgeColumn: return QString::fromStdString(formatDuration(age));
        case AllocatedAtColumn: return QString::fromStdString(formatDuration(a.time - trace.startTime()));
        case StackColumn: {
            // The innermost frame of the user's code (not a torch built-in); all of them in the tooltip.
            const QStringList frames =
                QString::fromStdString(analysis::pythonStackText(*m_report, *m_device, a)).split(QLatin1Char('\n'));
            for (const QString& frame : frames) {
                if (!frame.startsWith(QLatin1String("<built-in")))
                    return frame;
            }
            return frames.front();
        }
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == StackColumn)
        return QString::fromStdString(analysis::pythonStackText(*m_report, *m_device, a));
    if (role == Qt::ToolTipRole && index.column() == SizeColumn)
        return tr("%1 bytes at 0x%2").arg(QLocale().toString(qint64(a.bytes))).arg(a.address, 0, 16);
    if (role == Qt::TextAlignmentRole && index.column() != OpColumn && index.column() != StackColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant LiveAllocationsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SizeColumn: return tr("Size");
    case OpColumn: return tr("Allocated by");
    case AgeColumn: return tr("Age");
    case AllocatedAtColumn: return tr("Allocated at");
    case StackColumn: return tr("Python stack");
    default: return {};
    }
}

} // namespace ks
