#include "widgets/searchresultsmodel.h"

namespace ks {

void SearchResultsModel::setResults(std::shared_ptr<const Trace> trace, std::vector<SliceId> slices)
{
    beginResetModel();
    m_trace = std::move(trace);
    m_slices = std::move(slices);
    endResetModel();
}

SliceId SearchResultsModel::sliceAt(int row) const
{
    return row >= 0 && std::size_t(row) < m_slices.size() ? m_slices[std::size_t(row)] : kNoSlice;
}

int SearchResultsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_slices.size());
}

int SearchResultsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SearchResultsModel::data(const QModelIndex& index, int role) const
{
    const SliceId s = sliceAt(index.row());
    if (!m_trace || s == kNoSlice || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    const SliceTable& slices = m_trace->slices();
    switch (index.column()) {
    case Name: {
        const std::string_view name = m_trace->str(slices.name[s]);
        return QString::fromUtf8(name.data(), qsizetype(name.size()));
    }
    case Track: return QString::fromStdString(m_trace->trackDisplayName(m_trace->trackOf(s)));
    case Start: return QString::fromStdString(formatDuration(slices.start[s] - m_trace->startTime()));
    case Duration: return QString::fromStdString(formatDuration(slices.duration[s]));
    }
    return {};
}

QVariant SearchResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name: return tr("Name");
    case Track: return tr("Track");
    case Start: return tr("Start");
    case Duration: return tr("Duration");
    }
    return {};
}

} // namespace ks
