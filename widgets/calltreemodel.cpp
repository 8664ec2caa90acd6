#include "widgets/calltreemodel.h"

#include "widgets/statsformat.h"

#include <cmath>

namespace ks {

namespace {

// The model's root is the tree's root node, shown as the one top-level row ("all").
constexpr quintptr kNoParent = ~quintptr(0);

} // namespace

CallTreeModel::CallTreeModel(QObject* parent)
    : QAbstractItemModel(parent)
{
}

void CallTreeModel::setData(std::shared_ptr<const FlameGraphData> data)
{
    beginResetModel();
    m_data = std::move(data);
    endResetModel();
}

std::uint32_t CallTreeModel::nodeOf(const QModelIndex& index) const
{
    return index.isValid() ? std::uint32_t(index.internalId()) : FlameGraphData::kNone;
}

QModelIndex CallTreeModel::indexOf(std::uint32_t node) const
{
    if (!m_data || node >= m_data->size())
        return {};
    return createIndex(node == FlameGraphData::kRoot ? 0 : int(m_data->row[node]), 0, quintptr(node));
}

QModelIndex CallTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!m_data || m_data->size() == 0 || row < 0 || column < 0 || column >= columnCount())
        return {};
    if (!parent.isValid())
        return row == 0 ? createIndex(0, column, quintptr(FlameGraphData::kRoot)) : QModelIndex();
    const std::uint32_t p = nodeOf(parent);
    if (std::size_t(row) >= m_data->childCount(p))
        return {};
    return createIndex(row, column, quintptr(m_data->child(p, std::size_t(row))));
}

QModelIndex CallTreeModel::parent(const QModelIndex& child) const
{
    const std::uint32_t n = nodeOf(child);
    if (!m_data || n == FlameGraphData::kNone || n == FlameGraphData::kRoot)
        return {};
    return indexOf(m_data->parent[n]);
}

int CallTreeModel::rowCount(const QModelIndex& parent) const
{
    if (!m_data || m_data->size() == 0)
        return 0;
    if (!parent.isValid())
        return 1;
    if (parent.column() != 0)
        return 0;
    return int(m_data->childCount(nodeOf(parent)));
}

int CallTreeModel::columnCount(const QModelIndex&) const { return m_data && m_data->isDiff ? 5 : 6; }

QVariant CallTreeModel::data(const QModelIndex& index, int role) const
{
    if (!m_data || !index.isValid())
        return {};
    const std::uint32_t n = nodeOf(index);
    const FlameGraphData& d = *m_data;
    if (role == NodeRole)
        return QVariant::fromValue(n);
    if (role == Qt::ToolTipRole)
        return d.describe(n);
    if (role == Qt::TextAlignmentRole && index.column() > 0)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool sort = role == SortRole;
    const auto time = [&](double ns) -> QVariant {
        return sort ? QVariant(ns) : QVariant(statsDuration(TimeNs(std::llround(ns))));
    };
    if (index.column() == 0)
        return d.label[n];
    if (d.isDiff) {
        switch (index.column()) {
        case 1: return time(d.base[n]);
        case 2: return time(d.next[n]);
        case 3: return time(d.next[n] - d.base[n]);
        case 4: {
            const double change = d.change(n);
            if (sort)
                return std::isinf(change) ? 1e9 : change;
            return std::isinf(change) ? tr("new") : QString::number(100.0 * change, 'f', 1) + QLatin1Char('%');
        }
        default: return {};
        }
    }
    switch (index.column()) {
    case 1: return sort ? QVariant(double(d.calls[n])) : QVariant(QString::number(d.calls[n]));
    case 2: return time(d.cpuTotal[n]);
    case 3: return time(d.cpuSelf[n]);
    case 4: return time(d.gpuTotal[n]);
    case 5: return time(d.gpuSelf[n]);
    default: return {};
    }
}

QVariant CallTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    if (m_data && m_data->isDiff) {
        const QString headers[] = {tr("Frame"), tr("BASE / step"), tr("NEW / step"), tr("Δ / step"), tr("Δ %")};
        return section >= 0 && section < 5 ? headers[section] : QVariant();
    }
    const QString headers[] = {tr("Frame"),    tr("Calls"),     tr("CPU total"),
                               tr("CPU self"), tr("GPU total"), tr("GPU self")};
    return section >= 0 && section < 6 ? headers[section] : QVariant();
}

} // namespace ks
