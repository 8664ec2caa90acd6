#pragma once
// SQL over a loaded trace: an in-memory SQLite database whose tables are views of the model
// (see docs/query.md for the schema). Results are read row by row, so a huge result is never
// built in memory. One database per thread; the trace is shared read-only.
#include "core/model/trace.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace ks::query {

struct QueryError {
    std::string message; // SQLite's message
    int offset = -1; // byte offset in the SQL text where it went wrong, -1 if unknown
    bool failed() const { return !message.empty(); }
    // The message, and with an offset, the line of SQL at fault with a caret under the spot.
    std::string located(std::string_view sql) const;
};

struct QueryValue {
    enum class Type : std::uint8_t { Null, Integer, Real, Text, Blob };
    Type type = Type::Null;
    std::int64_t integer = 0;
    double real = 0;
    std::string_view text; // Text (UTF-8) or Blob bytes; valid until the cursor moves
};

// The rows of one statement, read one at a time.
class QueryCursor {
public:
    QueryCursor(sqlite3* db, sqlite3_stmt* statement);
    ~QueryCursor();
    QueryCursor(const QueryCursor&) = delete;
    QueryCursor& operator=(const QueryCursor&) = delete;

    const std::vector<std::string>& columns() const { return m_columns; }
    // Moves to the next row: true when there is one; false at the end or on an error (then
    // `error` says what went wrong).
    bool next(QueryError& error);
    QueryValue value(int column) const;

private:
    sqlite3* m_db;
    sqlite3_stmt* m_statement;
    std::vector<std::string> m_columns;
};

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
