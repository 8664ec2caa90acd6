#include "widgets/gpusummarymodel.h"

namespace ks {

namespace {

// Fractions are shown as percents; an absent metric (no data for it) as a dash.
QVariant percentCell(std::optional<double> percent, int role)
{
    if (role == Qt::UserRole)
        return percent ? QVariant(*percent) : QVariant();
    if (!percent)
        return QStringLiteral("–");
    return QString::fromStdString(gpu::formatPluginPercent(*percent));
}

std::optional<double> scaled(const std::optional<double>& fraction)
{
    return fraction ? std::optional<double>(100.0 * *fraction) : std::nullopt;
}

} // namespace

GpuSummaryModel::GpuSummaryModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void GpuSummaryModel::setReport(std::shared_ptr<const gpu::GpuReport> report)
{
    beginResetModel();
    m_report = std::move(report);
    m_range.clear();
    if (m_report) {
        for (const auto& s : m_report->analysis.summaries)
            m_range.push_back(s.steps);
    }
    endResetModel();
}

void GpuSummaryModel::setRange(TimeNs start, TimeNs end)
{
    if (!m_report || m_range.empty())
        return;
    for (std::size_t i = 0; i < m_range.size(); ++i)
        m_range[i] = m_report->analysis.gpus[i].metrics(start, end);
    Q_EMIT dataChanged(index(0, RangeUtilization), index(rowCount() - 1, RangeOccupancy));
}

int GpuSummaryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_report ? 0 : int(m_report->analysis.summaries.size());
}

int GpuSummaryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant GpuSummaryModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || (role != Qt::DisplayRole && role != Qt::UserRole))
        return {};
    const auto& s = m_report->analysis.summaries[std::size_t(index.row())];
    const auto& range = m_range[std::size_t(index.row())];
    const DeviceProperties* d = m_report->trace->deviceFor(s.device);
    switch (index.column()) {
    case Gpu: return s.device;
    case Name: return d ? QString::fromStdString(d->name) : QString();
    case Memory:
        if (role == Qt::UserRole)
            return d ? QVariant(qint64(d->totalGlobalMem)) : QVariant();
        return d ? QString::fromStdString(gpu::formatDeviceMemory(d->totalGlobalMem)) : QString();
    case ComputeCapability: return d ? QStringLiteral("%1.%2").arg(d->computeMajor).arg(d->computeMinor) : QString();
    case Utilization: return percentCell(100.0 * s.steps.utilization, role);
    case SmEfficiency: return percentCell(scaled(s.steps.smEfficiency), role);
    case Occupancy: return percentCell(s.steps.achievedOccupancy, role);
    case RangeUtilization: return percentCell(100.0 * range.utilization, role);
    case RangeSmEfficiency: return percentCell(scaled(range.smEfficiency), role);
    case RangeOccupancy: return percentCell(range.achievedOccupancy, role);
    default: return {};
    }
}

QVariant GpuSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Gpu: return tr("GPU");
    case Name: return tr("Name");
    case Memory: return tr("Memory");
    case ComputeCapability: return tr("Compute Capability");
    case Utilization: return tr("GPU Utilization");
    case SmEfficiency: return tr("Est. SM Efficiency");
    case Occupancy: return tr("Est. Achieved Occupancy");
    case RangeUtilization: return tr("Utilization (visible)");
    case RangeSmEfficiency: return tr("SM Efficiency (visible)");
    case RangeOccupancy: return tr("Occupancy (visible)");
    default: return {};
    }
}

} // namespace ks
