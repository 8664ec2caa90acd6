#include "core/query/tracedatabase.h"

#include "core/query/argfunctions.h"
#include "core/query/slicetable.h"
#include "core/query/structuretables.h"

#include <sqlite3.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

namespace ks::query {

namespace {

// Our tables, by name (also what an error about an unknown table or column lists).
struct TableSpec {
    const char* name;
    std::unique_ptr<TraceTable> (*make)(const Trace&);
};
constexpr TableSpec kTables[] = {
    {"slice", makeSliceTable},   {"kernel", makeKernelTable}, {"op", makeOpTable},     {"process", makeProcessTable},
    {"thread", makeThreadTable}, {"track", makeTrackTable},   {"flow", makeFlowTable}, {"counter", makeCounterTable},
};

std::string lower(std::string_view text)
{
    std::string out(text);
    for (char& c : out)
        c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return out;
}

// Edits (insert, delete, replace) from a to b, for names of a few characters.
std::size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// How much `column` looks like `wanted`: 0 one starts with the other ("cat", "duration"), 1 a
// typo (one edit, two in longer names), 2 an abbreviation (its letters in order, "extid"); nullopt: not alike.
std::optional<int> likeness(std::string_view wanted, std::string_view column)
{
    const std::string_view shorter = wanted.size() < column.size() ? wanted : column;
    const std::string_view longer = wanted.size() < column.size() ? column : wanted;
    if (shorter.size() >= 3 && longer.substr(0, shorter.size()) == shorter)
        return 0;
    if (wanted.size() >= 4 && editDistance(wanted, column) <= (wanted.size() >= 6 ? 2u : 1u))
        return 1;
    if (wanted.size() >= 3 && !column.empty() && wanted[0] == column[0]) {
        std::size_t at = 0;
        for (const char c : column)
            at += at < wanted.size() && wanted[at] == c;
        if (at == wanted.size())
            return 2;
    }
    return std::nullopt;
}

// Our tables' columns most like `missing`, as "category (slice, kernel, op)".
std::string similarColumns(sqlite3* db, std::string_view missing)
{
    const auto dot = missing.rfind('.');
    const std::string wanted = lower(dot == std::string_view::npos ? missing : missing.substr(dot + 1));
    struct Similar {
        int likeness;
        std::string column, tables;
    };
    std::vector<Similar> found;
    for (const TableSpec& spec : kTables) {
        const char* table = spec.name;
        sqlite3_stmt* statement = nullptr;
        const std::string sql = std::string("SELECT name FROM pragma_table_info('") + table + "')";
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK) {
            while (sqlite3_step(statement) == SQLITE_ROW) {
                const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
                const std::string column = text ? text : "";
                const auto like = likeness(wanted, column);
                if (!like)
                    continue;
                auto it =
                    std::find_if(found.begin(), found.end(), [&](const Similar& f) { return f.column == column; });
                if (it == found.end())
                    found.push_back({*like, column, table});
                else
                    it->tables += std::string(", ") + table;
            }
        }
        sqlite3_finalize(statement);
    }
    int best = 3;
    for (const Similar& f : found)
        best = std::min(best, f.likeness);
    std::string out;
    for (const Similar& f : found) {
        if (f.likeness == best)
            out += (out.empty() ? "" : "; ") + f.column + " (" + f.tables + ")";
    }
    return out;
}

// SQLite names what it did not find; we add what there is, since the schema is ours.
void addSchemaHint(sqlite3* db, QueryError& error)
{
    constexpr std::string_view kNoColumn = "no such column: ", kNoTable = "no such table: ";
    if (error.message.rfind(kNoColumn, 0) == 0) {
        const std::string similar = similarColumns(db, std::string_view(error.message).substr(kNoColumn.size()));
        if (!similar.empty())
            error.message += " (columns like it: " + similar + ")";
    } else if (error.message.rfind(kNoTable, 0) == 0) {
        std::string tables;
        for (const TableSpec& table : kTables)
            tables += (tables.empty() ? "" : ", ") + std::string(table.name);
        error.message += " (the tables: " + tables + ")";
    }
}

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
    int rc = SQLITE_OK;
    for (const TableSpec& table : kTables) {
        if (rc == SQLITE_OK)
            rc = registerTable(m_db, table.name, table.make(t));
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
            addSchemaHint(m_db, error);
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
