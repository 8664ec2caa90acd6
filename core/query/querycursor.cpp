#include "core/query/querycursor.h"

#include <sqlite3.h>

#include <algorithm>
#include <limits>

namespace ks::query {

QueryError lastError(sqlite3* db)
{
    QueryError error{sqlite3_errmsg(db), sqlite3_error_offset(db)};
    if (error.message.empty())
        error.message = "SQL error";
    return error;
}

std::string QueryError::located(std::string_view sql) const
{
    if (offset < 0 || static_cast<std::size_t>(offset) > sql.size())
        return message;
    const auto at = static_cast<std::size_t>(offset);
    const auto lineStart = sql.rfind('\n', at == 0 ? 0 : at - 1);
    const std::size_t begin = (lineStart == std::string_view::npos || at == 0) ? 0 : lineStart + 1;
    const std::size_t end = std::min(sql.find('\n', at), sql.size());
    std::string out = message + " (at offset " + std::to_string(offset) + ")\n  ";
    out.append(sql.substr(begin, end - begin));
    out += "\n  ";
    for (std::size_t i = begin; i < at; ++i)
        out += sql[i] == '\t' ? '\t' : ' ';
    out += '^';
    return out;
}

QueryCursor::QueryCursor(sqlite3* db, sqlite3_stmt* statement)
    : m_db(db)
    , m_statement(statement)
{
    const int count = sqlite3_column_count(statement);
    for (int i = 0; i < count; ++i) {
        const char* name = sqlite3_column_name(statement, i);
        m_columns.emplace_back(name ? name : "");
    }
}

QueryCursor::~QueryCursor() { sqlite3_finalize(m_statement); }

bool QueryCursor::next(QueryError& error)
{
    const int rc = sqlite3_step(m_statement);
    if (rc == SQLITE_ROW)
        return true;
    if (rc != SQLITE_DONE)
        error = lastError(m_db);
    return false;
}

QueryValue QueryCursor::value(int column) const
{
    QueryValue v;
    switch (sqlite3_column_type(m_statement, column)) {
    case SQLITE_INTEGER:
        v.type = QueryValue::Type::Integer;
        v.integer = sqlite3_column_int64(m_statement, column);
        break;
    case SQLITE_FLOAT:
        v.type = QueryValue::Type::Real;
        v.real = sqlite3_column_double(m_statement, column);
        break;
    case SQLITE_TEXT: {
        v.type = QueryValue::Type::Text;
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(m_statement, column));
        v.text =
            std::string_view(text ? text : "", static_cast<std::size_t>(sqlite3_column_bytes(m_statement, column)));
        break;
    }
    case SQLITE_BLOB: {
        v.type = QueryValue::Type::Blob;
        const auto* bytes = static_cast<const char*>(sqlite3_column_blob(m_statement, column));
        v.text =
            std::string_view(bytes ? bytes : "", static_cast<std::size_t>(sqlite3_column_bytes(m_statement, column)));
        break;
    }
    default: break;
    }
    return v;
}

} // namespace ks::query
