#pragma once
// A query's rows written as they come (never gathered first): tab-separated text, CSV (RFC 4180)
// or JSON, {"columns": [...], "rows": [{column: value, ...}, ...]}.
#include "core/query/tracedatabase.h"

#include <ostream>

namespace ks::query {

enum class OutputFormat { Text, Csv, Json };

// Writes every row of `cursor`; false (with `error` set) when the query failed midway: what was
// written stays, the JSON's brackets are still closed.
bool writeQueryResult(QueryCursor& cursor, std::ostream& out, OutputFormat format, QueryError& error);

// One CSV field, quoted when it holds a comma, a quote or a line break.
std::string csvField(std::string_view text);

// A value as JSON text: integers and reals as numbers (non-finite reals as null), text as a
// string (ill-formed UTF-8 replaced), blobs as a hex string, NULL as null.
void appendJsonValue(std::string& out, const QueryValue& value);

} // namespace ks::query
