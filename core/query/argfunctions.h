#pragma once
// SQL functions that read a slice's args from the trace's source on demand (args are not kept
// in the model): arg(slice_id, 'name') is one arg's value, args(slice_id) all of them as JSON.
struct sqlite3;

namespace ks {
class Trace;
}

namespace ks::query {

// Returns SQLite's result code.
int registerArgFunctions(sqlite3* db, const Trace& trace);

} // namespace ks::query
