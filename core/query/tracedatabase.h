#pragma once
// SQL over a loaded trace: an in-memory SQLite database whose tables are views of the model
// (see docs/query.md for the schema). Results are read row by row, so a huge result is never
// built in memory. One database per thread; the trace is shared read-only.
#include "core/model/trace.h"
#include "core/query/querycursor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace ks::query {

class TraceDatabase {
public:
    // Throws std::runtime_error when SQLite cannot open an in-memory database.
    explicit TraceDatabase(std::shared_ptr<const Trace> trace);
    ~TraceDatabase();
    TraceDatabase(const TraceDatabase&) = delete;
    TraceDatabase& operator=(const TraceDatabase&) = delete;

    // Prepares `sql`; statements before the last one run to completion first (CREATE VIEW ...;
    // SELECT ...), the last one's rows are the result. Null with `error` set when it fails.
    std::unique_ptr<QueryCursor> query(std::string_view sql, QueryError& error);
    // Makes a running query fail with "interrupted" soon; callable from any thread.
    void interrupt();

    const Trace& trace() const { return *m_trace; }

private:
    std::shared_ptr<const Trace> m_trace;
    sqlite3* m_db = nullptr;
};

} // namespace ks::query
