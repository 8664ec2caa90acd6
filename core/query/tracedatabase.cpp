#include "core/query/tracedatabase.h"

#include "core/query/argfunctions.h"
#include "core/query/slicetable.h"
#include "core/query/structuretables.h"

#include <sqlite3.h>

#include <limits>
#include <stdexcept>

namespace ks::query {

namespace {

// Whether what follows a statement holds no other one: white space, semicolons and comments.
bool onlySpaceOrComments(std::string_view sql)
{
    std::size_t i = 0;
    while (i < sql.size()) {
        if (sql.compare(i, 2, "--") == 0) {
            i = sql.find('\n', i);
        } else if (sql.compare(i, 2, "/*") == 0) {
            i = sql.find("*/", i + 2);
            if (i != std::string_view::npos)
                i += 2;
        } else if (std::string_view(" \t\r\n\f\v;").find(sql[i]) != std::string_view::npos) {
            ++i;
        } else {
            return false;
        }
    }
    return true;
}

} // namespace

TraceDatabase::TraceDatabase(std::shared_ptr<const Trace> trace)
    : m_trace(std::move(trace))
{
    if (!m_trace)
        throw std::invalid_argument("no trace");
    if (sqlite3_open_v2(":memory:", &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY | SQLITE_OPEN_NOMUTEX, nullptr)
        != SQLITE_OK) {
        const std::string message = m_db ? sqlite3_errmsg(m_db) : "out of memory";
        sqlite3_close(m_db);
        throw std::runtime_error("cannot open SQLite: " + message);
    }
    // Queries read the trace; they need no other database file (ATTACH would create one).
    sqlite3_limit(m_db, SQLITE_LIMIT_ATTACHED, 0);
    const Trace& t = *m_trace;
    std::pair<const char*, std::unique_ptr<TraceTable>> tables[] = {
        {"slice", makeSliceTable(t)},     {"kernel", makeKernelTable(t)},   {"op", makeOpTable(t)},
        {"process", makeProcessTable(t)}, {"thread", makeThreadTable(t)},   {"track", makeTrackTable(t)},
        {"flow", makeFlowTable(t)},       {"counter", makeCounterTable(t)},
    };
    int rc = SQLITE_OK;
    for (auto& [name, table] : tables) {
        if (rc == SQLITE_OK)
            rc = registerTable(m_db, name, std::move(table));
    }
    if (rc == SQLITE_OK)
        rc = registerArgFunctions(m_db, t);
    if (rc != SQLITE_OK) {
        const std::string message = sqlite3_errmsg(m_db);
        sqlite3_close(m_db);
        throw std::runtime_error("cannot set up the SQL tables: " + message);
    }
}

TraceDatabase::~TraceDatabase() { sqlite3_close(m_db); }

void TraceDatabase::interrupt() { sqlite3_interrupt(m_db); }

std::unique_ptr<QueryCursor> TraceDatabase::query(std::string_view sql, QueryError& error)
{
    error = {};
    if (sql.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
        error.message = "SQL text too long";
        return nullptr;
    }
    const char* const text = sql.data();
    const char* const textEnd = text + sql.size();
    const char* rest = text;
    while (rest < textEnd) {
        sqlite3_stmt* statement = nullptr;
        const char* tail = nullptr;
        if (sqlite3_prepare_v2(m_db, rest, static_cast<int>(textEnd - rest), &statement, &tail) != SQLITE_OK) {
            error = lastError(m_db);
            if (error.offset >= 0) // relative to the statement; callers locate it in the whole text
                error.offset += static_cast<int>(rest - text);
            sqlite3_finalize(statement);
            return nullptr;
        }
        const bool last =
            !tail || onlySpaceOrComments(std::string_view(tail, static_cast<std::size_t>(textEnd - tail)));
        if (statement && last)
            return std::make_unique<QueryCursor>(m_db, statement);
        if (statement) { // an earlier statement: run it through
            int rc = SQLITE_ROW;
            while (rc == SQLITE_ROW)
                rc = sqlite3_step(statement);
            if (rc != SQLITE_DONE) {
                error = lastError(m_db);
                sqlite3_finalize(statement);
                return nullptr;
            }
            sqlite3_finalize(statement);
        }
        if (!tail || tail == rest)
            break;
        rest = tail;
    }
    error.message = "no SQL statement";
    return nullptr;
}

} // namespace ks::query
