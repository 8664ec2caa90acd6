#include "core/query/structuretables.h"

#include <sqlite3.h>

#include <algorithm>

namespace ks::query {

namespace {

// A table of n rows, row i being element i of one of the model's arrays.
class ArrayTable : public TraceTable {
public:
    using TraceTable::TraceTable;
    IndexedColumns indexedColumns() const override { return {0, -1, -1}; }
    std::vector<Segment> segments(const ScanBounds& bounds) const override
    {
        const auto n = size();
        if (!bounds.id)
            return {{0, n}};
        if (*bounds.id < 0 || static_cast<std::uint64_t>(*bounds.id) >= n)
            return {};
        return {{static_cast<std::uint64_t>(*bounds.id), static_cast<std::uint64_t>(*bounds.id) + 1}};
    }
    double estimatedRows() const override { return double(size()); }
    virtual std::uint64_t size() const = 0;
};

std::string_view trackKindName(TrackKind kind)
{
    switch (kind) {
    case TrackKind::CpuThread: return "cpu_thread";
    case TrackKind::GpuStream: return "gpu_stream";
    case TrackKind::Other: break;
    }
    return "other";
}

class ProcessTable final : public ArrayTable {
public:
    using ArrayTable::ArrayTable;
    const char* schema() const override
    {
        return "CREATE TABLE process(id INTEGER, pid, name TEXT, display_name TEXT, labels TEXT, is_device INTEGER, "
               "device INTEGER, sort_index INTEGER, event_count INTEGER)";
    }
    std::uint64_t size() const override { return m_trace.processes().size(); }
    void column(sqlite3_context* context, std::uint64_t row, int column, const ArgsBatch&) const override
    {
        const auto index = static_cast<std::uint32_t>(row);
        const Process& p = m_trace.processes()[index];
        switch (column) {
        case 0: sqlite3_result_int64(context, index); break;
        case 1: resultJsonId(context, m_trace, p.pid); break;
        case 2: resultPooledText(context, p.name); break;
        case 3: resultText(context, m_trace.processDisplayName(index)); break;
        case 4: resultPooledText(context, p.labels); break;
        case 5: sqlite3_result_int(context, p.isDevice ? 1 : 0); break;
        case 6:
            if (p.deviceIndex >= 0)
                sqlite3_result_int(context, p.deviceIndex);
            else
                sqlite3_result_null(context);
            break;
        case 7:
            if (p.hasSortIndex)
                sqlite3_result_int64(context, p.sortIndex);
            else
                sqlite3_result_null(context);
            break;
        case 8: sqlite3_result_int64(context, static_cast<std::int64_t>(p.eventCount)); break;
        default: sqlite3_result_null(context); break;
        }
    }
};

// Columns shared by `track` and `thread`: a track's identity and place.
class TrackRowsTable : public ArrayTable {
public:
    using ArrayTable::ArrayTable;
    std::uint64_t size() const override { return m_trace.tracks().size(); }
    void column(sqlite3_context* context, std::uint64_t row, int column, const ArgsBatch&) const override
    {
        const auto index = static_cast<std::uint32_t>(row);
        const Track& t = m_trace.tracks()[index];
        switch (column) {
        case 0: sqlite3_result_int64(context, index); break;
        case 1: resultJsonId(context, m_trace, t.tid); break;
        case 2: resultPooledText(context, t.name); break;
        case 3: resultText(context, m_trace.trackDisplayName(index)); break;
        case 4: sqlite3_result_int64(context, t.process); break;
        case 5: resultJsonId(context, m_trace, m_trace.processes()[t.process].pid); break;
        case 6: resultPooledText(context, trackKindName(t.kind)); break;
        case 7: sqlite3_result_int64(context, t.sliceCount()); break;
        case 8:
            if (t.hasSortIndex)
                sqlite3_result_int64(context, t.sortIndex);
            else
                sqlite3_result_null(context);
            break;
        default: sqlite3_result_null(context); break;
        }
    }
};
#define KS_TRACK_COLUMNS                                                                                               \
    "(id INTEGER, tid, name TEXT, display_name TEXT, process INTEGER, pid, kind TEXT, slice_count INTEGER, "           \
    "sort_index INTEGER)"

class TrackTable final : public TrackRowsTable {
public:
    using TrackRowsTable::TrackRowsTable;
    const char* schema() const override { return "CREATE TABLE track" KS_TRACK_COLUMNS; }
};

class ThreadTable final : public TrackRowsTable {
public:
    using TrackRowsTable::TrackRowsTable;
    const char* schema() const override { return "CREATE TABLE thread" KS_TRACK_COLUMNS; }
    bool contains(std::uint64_t row) const override
    {
        return m_trace.tracks()[static_cast<std::size_t>(row)].kind == TrackKind::CpuThread;
    }
};
#undef KS_TRACK_COLUMNS

class FlowTable final : public ArrayTable {
public:
    using ArrayTable::ArrayTable;
    const char* schema() const override
    {
        return "CREATE TABLE flow(id INTEGER, slice_out INTEGER, slice_in INTEGER, name TEXT, category TEXT, "
               "flow_id INTEGER)";
    }
    std::uint64_t size() const override { return m_trace.flows().size(); }
    void column(sqlite3_context* context, std::uint64_t row, int column, const ArgsBatch&) const override
    {
        const Flow& f = m_trace.flows()[static_cast<std::size_t>(row)];
        switch (column) {
        case 0: sqlite3_result_int64(context, static_cast<std::int64_t>(row)); break;
        case 1: sqlite3_result_int64(context, f.from); break;
        case 2: sqlite3_result_int64(context, f.to); break;
        case 3: resultPooledText(context, m_trace.str(f.name)); break;
        case 4: resultPooledText(context, m_trace.str(f.category)); break;
        // flow ids are unsigned 64-bit in the source; SQL integers are signed (same bits).
        case 5: sqlite3_result_int64(context, static_cast<std::int64_t>(f.id)); break;
        default: sqlite3_result_null(context); break;
        }
    }
};

// One row per sample; row i is sample i of the series concatenated in order (the running
// sample counts locate it).
class CounterTable final : public ArrayTable {
public:
    explicit CounterTable(const Trace& trace)
        : ArrayTable(trace)
    {
        m_firstSample.reserve(trace.counters().size() + 1);
        std::uint64_t total = 0;
        for (const auto& series : trace.counters()) {
            m_firstSample.push_back(total);
            total += series.time.size();
        }
        m_firstSample.push_back(total);
    }
    const char* schema() const override
    {
        return "CREATE TABLE counter(id INTEGER, ts INTEGER, value REAL, name TEXT, series INTEGER, "
               "process INTEGER, pid)";
    }
    std::uint64_t size() const override { return m_firstSample.back(); }
    void column(sqlite3_context* context, std::uint64_t row, int column, const ArgsBatch&) const override
    {
        const auto series = static_cast<std::size_t>(std::upper_bound(m_firstSample.begin(), m_firstSample.end(), row)
                                                     - m_firstSample.begin() - 1);
        const CounterSeries& c = m_trace.counters()[series];
        const auto sample = static_cast<std::size_t>(row - m_firstSample[series]);
        switch (column) {
        case 0: sqlite3_result_int64(context, static_cast<std::int64_t>(row)); break;
        case 1: sqlite3_result_int64(context, c.time[sample]); break;
        case 2: sqlite3_result_double(context, c.value[sample]); break;
        case 3: resultPooledText(context, c.name); break;
        case 4: sqlite3_result_int64(context, static_cast<std::int64_t>(series)); break;
        case 5:
            if (c.process == kNoIndex)
                sqlite3_result_null(context);
            else
                sqlite3_result_int64(context, c.process);
            break;
        case 6: resultJsonId(context, m_trace, c.pid); break;
        default: sqlite3_result_null(context); break;
        }
    }

private:
    std::vector<std::uint64_t> m_firstSample; // per series, and the total at the end
};

} // namespace

std::unique_ptr<TraceTable> makeProcessTable(const Trace& trace) { return std::make_unique<ProcessTable>(trace); }
std::unique_ptr<TraceTable> makeThreadTable(const Trace& trace) { return std::make_unique<ThreadTable>(trace); }
std::unique_ptr<TraceTable> makeTrackTable(const Trace& trace) { return std::make_unique<TrackTable>(trace); }
std::unique_ptr<TraceTable> makeFlowTable(const Trace& trace) { return std::make_unique<FlowTable>(trace); }
std::unique_ptr<TraceTable> makeCounterTable(const Trace& trace) { return std::make_unique<CounterTable>(trace); }

} // namespace ks::query
