#pragma once
// The rows of an SQL statement over a trace (TraceDatabase::query), and its errors.
#include <cstdint>
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

// SQLite's last error on `db`, with where in the SQL it happened.
QueryError lastError(sqlite3* db);

} // namespace ks::query
