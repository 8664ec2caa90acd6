#include "widgets/nvprofmodel.h"

namespace ks {

NvprofModel::NvprofModel(Section section, QObject* parent)
    : QAbstractTableModel(parent)
    , m_section(section)
{
}

void NvprofModel::setReport(std::shared_ptr<const gpu::GpuReport> report)
{
    beginResetModel();
    m_report = std::move(report);
    endResetModel();
}

const std::vector<gpu::NvprofRow>* NvprofModel::rows() const
{
    if (!m_report)
        return nullptr;
    return m_section == Section::GpuActivities ? &m_report->nvprof.gpuActivities : &m_report->nvprof.apiCalls;
}

int NvprofModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !rows() ? 0 : int(rows()->size());
}

int NvprofModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant NvprofModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const gpu::NvprofRow& row = (*rows())[std::size_t(index.row())];
    const auto time = [](double ns) { return QString::fromStdString(gpu::formatNvprofTime(ns)); };
    if (role == Qt::UserRole) {
        switch (Column(index.column())) {
        case TimePercent: return row.timePercent;
        case Time: return qlonglong(row.total);
        case Calls: return qulonglong(row.calls);
        case Average: return row.average();
        case Min: return qlonglong(row.min);
        case Max: return qlonglong(row.max);
        case Name: return QString::fromStdString(row.name);
        case ColumnCount: break;
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == Name ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Name) // the full name: the column elides it
        return row.bytes >= 0 ? tr("%1 (%L2 bytes)").arg(QString::fromStdString(row.name)).arg(row.bytes)
                              : QString::fromStdString(row.name);
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(index.column())) {
    case TimePercent: return QStringLiteral("%1%").arg(row.timePercent, 0, 'f', 2);
    case Time: return time(double(row.total));
    case Calls: return QString::number(row.calls);
    case Average: return time(row.average());
    case Min: return time(double(row.min));
    case Max: return time(double(row.max));
    case Name:
        return row.bytes >= 0 ? tr("%1  (%L2 bytes)").arg(QString::fromStdString(row.name)).arg(row.bytes)
                              : QString::fromStdString(row.name);
    case ColumnCount: break;
    }
    return {};
}

QVariant NvprofModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case TimePercent: return tr("Time(%)");
    case Time: return tr("Time");
    case Calls: return tr("Calls");
    case Average: return tr("Avg");
    case Min: return tr("Min");
    case Max: return tr("Max");
    case Name: return tr("Name");
    case ColumnCount: break;
    }
    return {};
}

} // namespace ks
