#include "widgets/statsrangemodel.h"

#include "widgets/statsformat.h"

#include <numeric>

namespace ks {

void RangeAggregateModel::setTracks(std::vector<std::uint32_t> tracks)
{
    m_tracks = std::move(tracks);
    Q_EMIT recomputeNeeded();
}

void RangeAggregateModel::setAggregates(RangeAggregates aggregates, std::vector<QString> streamNames)
{
    beginResetModel();
    m_aggregates = std::move(aggregates);
    m_streamNames = std::move(streamNames);
    endResetModel();
}

std::function<StatsTableModel::Installer()> RangeAggregateModel::rowsJob(std::shared_ptr<const Trace> trace,
                                                                         std::optional<TimeRange> range) const
{
    return [trace, range, tracks = m_tracks]() -> Installer {
        auto aggregates = std::make_shared<RangeAggregates>();
        auto names = std::make_shared<std::vector<QString>>();
        if (trace) {
            std::vector<std::uint32_t> all = tracks;
            if (all.empty()) {
                all.resize(trace->tracks().size());
                std::iota(all.begin(), all.end(), 0u);
            }
            const TimeRange r = range.value_or(TimeRange{trace->startTime(), trace->endTime() + 1});
            *aggregates = computeRangeAggregates(*trace, r.from, r.to, all);
            for (const auto& s : aggregates->streams)
                names->push_back(QString::fromStdString(trace->trackDisplayName(s.track)));
        }
        return [aggregates, names](StatsTableModel& model) {
            static_cast<RangeAggregateModel&>(model).setAggregates(std::move(*aggregates), std::move(*names));
        };
    };
}

const std::vector<SliceId>& RangeAggregateModel::occurrences(int row) const
{
    return row < int(m_aggregates.rows.size()) ? m_aggregates.rows[row].slices : m_noSlices;
}

int RangeAggregateModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_aggregates.rows.size() + m_aggregates.streams.size());
}

int RangeAggregateModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RangeAggregateModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role == Qt::TextAlignmentRole)
        return index.column() == Name ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                      : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != kSortRole && role != Qt::ToolTipRole)
        return {};
    const bool sort = role == kSortRole;
    const auto time = [&](TimeNs ns) { return sort ? QVariant(qint64(ns)) : QVariant(statsDuration(ns)); };
    const std::size_t row = std::size_t(index.row());
    if (row >= m_aggregates.rows.size()) {
        // A GPU stream's busy time: the union of its kernels, copies and sets in the range.
        const std::size_t s = row - m_aggregates.rows.size();
        const TimeNs busy = m_aggregates.streams[s].busy;
        if (role == Qt::ToolTipRole)
            return tr("%1 of the range").arg(statsPercent(busy, m_aggregates.to - m_aggregates.from));
        if (index.column() == Name)
            return tr("%1 (busy)").arg(m_streamNames[s]);
        return index.column() == Total ? time(busy) : QVariant();
    }
    const RangeAggregateRow& r = m_aggregates.rows[row];
    if (role == Qt::ToolTipRole)
        return index.column() == Name ? QVariant(QString::fromStdString(r.name)) : QVariant();
    switch (index.column()) {
    case Name: return QString::fromStdString(r.name);
    case Count: return sort ? QVariant(qulonglong(r.count)) : QVariant(QString::number(r.count));
    case Total: return time(r.total);
    case Self: return time(r.self);
    case Average: return time(r.average());
    case Min: return time(r.min);
    case Max: return time(r.max);
    }
    return {};
}

QVariant RangeAggregateModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Name");
    case Count: return tr("Count");
    case Total: return tr("Total");
    case Self: return tr("Self");
    case Average: return tr("Average");
    case Min: return tr("Min");
    case Max: return tr("Max");
    }
    return {};
}

} // namespace ks
