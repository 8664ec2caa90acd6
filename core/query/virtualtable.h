#pragma once
// The frame of every SQL table over the trace: an SQLite eponymous virtual table whose rows are
// indices into one of the model's arrays, read in place (nothing is copied into SQLite). A table
// says which rows a scan visits (segments of indices, ascending), how a row's columns read, and
// which constraints narrow a scan cheaply: `id = ?`, a range of `ts` and `track = ?`. SQLite still
// checks every constraint on the rows it gets, so narrowing only has to keep every matching row.
#include "core/model/trace.h"
#include "core/query/argsbatch.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_context;

namespace ks::query {

struct Segment {
    std::uint64_t begin = 0, end = 0;
};

// What a scan was asked for, from the constraints the table offered in planning.
struct ScanBounds {
    std::optional<std::int64_t> id; // id = ?
    TimeNs tsMin = std::numeric_limits<TimeNs>::min(); // ts >= (or >) ?
    TimeNs tsMax = std::numeric_limits<TimeNs>::max(); // ts <= (or <) ?
    std::optional<std::int64_t> track; // track = ?
    bool hasTsRange() const
    {
        return tsMin != std::numeric_limits<TimeNs>::min() || tsMax != std::numeric_limits<TimeNs>::max();
    }
};

// The column indices of a table's schema that narrow a scan (-1: none).
struct IndexedColumns {
    int id = -1;
    int ts = -1;
    int track = -1;
};

class TraceTable {
public:
    explicit TraceTable(const Trace& trace)
        : m_trace(trace)
    {
    }
    virtual ~TraceTable() = default;
    TraceTable(const TraceTable&) = delete;
    TraceTable& operator=(const TraceTable&) = delete;

    // "CREATE TABLE x(col, ...)": the columns SQLite sees, in order.
    virtual const char* schema() const = 0;
    virtual IndexedColumns indexedColumns() const { return {}; }
    // The rows a scan within `bounds` visits, ascending and disjoint; rows outside may be
    // included (SQLite filters them), matching ones may not be left out.
    virtual std::vector<Segment> segments(const ScanBounds& bounds) const = 0;
    // Whether a row of the segments exists (e.g. the kernel table skips slices of other kinds).
    virtual bool contains(std::uint64_t) const { return true; }
    virtual std::int64_t rowid(std::uint64_t row) const { return static_cast<std::int64_t>(row); }
    // Columns whose values come from the slice's args (bit i: column i); 0 when none.
    virtual std::uint64_t argsColumns() const { return 0; }
    virtual SliceId sliceOf(std::uint64_t row) const { return static_cast<SliceId>(row); }
    // Sets the result of column `column` of `row`; `args` holds the row's slice when argsColumns()
    // has a bit of a column the query reads.
    virtual void column(sqlite3_context* context, std::uint64_t row, int column, const ArgsBatch& args) const = 0;
    // A rough number of rows, for SQLite's planner.
    virtual double estimatedRows() const = 0;

    const Trace& trace() const { return m_trace; }

protected:
    const Trace& m_trace;
};

// Registers `table` as the eponymous virtual table `name` of `db` (SELECT ... FROM name works
// without CREATE VIRTUAL TABLE); the database owns it. Returns SQLite's result code.
int registerTable(sqlite3* db, const char* name, std::unique_ptr<TraceTable> table);

// The segments of slice ids within `bounds`: every row of the timeline (of one track with
// `track = ?`) cut to the slices that start in the ts range by binary search, since each row is
// sorted by start; [id, id + 1) for `id = ?`.
std::vector<Segment> sliceSegments(const Trace& trace, const ScanBounds& bounds);

// Column values of common kinds (strings of the pool are passed without a copy).
void resultText(sqlite3_context* context, std::string_view text);
void resultPooledText(sqlite3_context* context, std::string_view text); // lives as long as the trace
void resultJsonId(sqlite3_context* context, const Trace& trace, const JsonId& id);
void resultOptionalId(sqlite3_context* context, std::int64_t id); // kNoId -> NULL
// A JSON value as SQL: numbers and strings as such, booleans as 0/1, null as NULL, arrays and
// objects as their JSON text.
void resultJson(sqlite3_context* context, const nlohmann::json& value);

} // namespace ks::query
