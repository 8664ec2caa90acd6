#pragma once
// The Range table: per slice name, count, total, self, average, min and max over a time
// range and a set of tracks (all tracks unless set), plus one "busy" row per GPU stream.
// Without a range it covers the whole trace.
#include "core/stats/rangeaggregates.h"
#include "widgets/statstablemodel.h"

namespace ks {

class RangeAggregateModel : public StatsTableModel {
    Q_OBJECT
public:
    enum Column { Name, Count, Total, Self, Average, Min, Max, ColumnCount };

    using StatsTableModel::StatsTableModel;

    // Empty: every track.
    void setTracks(std::vector<std::uint32_t> tracks);
    void setAggregates(RangeAggregates aggregates, std::vector<QString> streamNames);
    const RangeAggregates& aggregates() const { return m_aggregates; }

    std::function<Installer()> rowsJob(std::shared_ptr<const Trace> trace,
                                       std::optional<TimeRange> range) const override;
    const std::vector<SliceId>& occurrences(int row) const override;
    int defaultSortColumn() const override { return Total; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    RangeAggregates m_aggregates;
    std::vector<QString> m_streamNames; // parallel to m_aggregates.streams
    std::vector<std::uint32_t> m_tracks;
    std::vector<SliceId> m_noSlices;
};

} // namespace ks
