#include "core/query/argfunctions.h"

#include "core/model/boundedjson.h"
#include "core/query/virtualtable.h"

#include <sqlite3.h>

namespace ks::query {

namespace {

// The args of the last slice asked for: a query reading several args of one row reads its
// text once.
struct ArgReader {
    const Trace& trace;
    SliceId cached = kNoSlice;
    nlohmann::json args;

    const nlohmann::json* argsOf(sqlite3_value* id)
    {
        if (sqlite3_value_numeric_type(id) != SQLITE_INTEGER)
            return nullptr;
        const auto s = sqlite3_value_int64(id);
        if (s < 0 || static_cast<std::uint64_t>(s) >= trace.slices().size())
            return nullptr;
        if (static_cast<SliceId>(s) != cached) {
            constexpr int kMaxDepth = 64;
            const auto event = parseBoundedJson(trace.eventText(static_cast<SliceId>(s)), kMaxDepth);
            const auto it = event.is_object() ? event.find("args") : event.end();
            args = it != event.end() && it->is_object() ? *it : nlohmann::json();
            cached = static_cast<SliceId>(s);
        }
        return &args;
    }
};

void argFunction(sqlite3_context* context, int, sqlite3_value** argv)
{
    auto* reader = static_cast<ArgReader*>(sqlite3_user_data(context));
    const auto* args = reader->argsOf(argv[0]);
    const auto* key = reinterpret_cast<const char*>(sqlite3_value_text(argv[1]));
    if (!args || !key || !args->is_object()) {
        sqlite3_result_null(context);
        return;
    }
    const auto it = args->find(key);
    if (it == args->end())
        sqlite3_result_null(context);
    else
        resultJson(context, *it);
}

void argsFunction(sqlite3_context* context, int, sqlite3_value** argv)
{
    auto* reader = static_cast<ArgReader*>(sqlite3_user_data(context));
    const auto* args = reader->argsOf(argv[0]);
    if (!args || args->is_null())
        sqlite3_result_null(context);
    else
        resultText(context, args->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

} // namespace

int registerArgFunctions(sqlite3* db, const Trace& trace)
{
    // One reader for both functions; freed with the database through arg()'s destructor.
    auto* reader = new ArgReader{trace, kNoSlice, {}};
    int rc = sqlite3_create_function_v2(db, "args", 1, SQLITE_UTF8, reader, argsFunction, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
        delete reader;
        return rc;
    }
    return sqlite3_create_function_v2(db, "arg", 2, SQLITE_UTF8, reader, argFunction, nullptr, nullptr,
                                      [](void* p) { delete static_cast<ArgReader*>(p); });
}

} // namespace ks::query
