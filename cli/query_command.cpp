// kinetoscope-cli query: SQL over a trace (docs/query.md), rows as text, CSV or JSON.
#include "cli/command.h"
#include "core/loading/loader.h"
#include "core/query/queryoutput.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace ks::cli {

namespace {

struct QueryOptions {
    std::string path;
    std::string sql;
    bool json = false;
    bool csv = false;
};

int runQuery(const QueryOptions& options)
{
    const auto loaded = loadTraceFile(options.path);
    if (!loaded.ok()) {
        std::fprintf(stderr, "kinetoscope-cli query: %s: %s\n", options.path.c_str(),
                     loaded.fatal ? loaded.fatal->located().c_str() : "cancelled");
        return 1;
    }
    query::TraceDatabase database(loaded.trace);
    query::QueryError error;
    auto cursor = database.query(options.sql, error);
    if (cursor) {
        std::ios::sync_with_stdio(false);
        const auto format = options.json ? query::OutputFormat::Json
            : options.csv                ? query::OutputFormat::Csv
                                         : query::OutputFormat::Text;
        query::writeQueryResult(*cursor, std::cout, format, error);
    }
    if (error.failed()) {
        std::fprintf(stderr, "kinetoscope-cli query: %s\n", error.located(options.sql).c_str());
        return 1;
    }
    return 0;
}

} // namespace

void addQueryCommand(CLI::App& app)
{
    auto options = std::make_shared<QueryOptions>();
    auto* command = app.add_subcommand("query", "SQL over a trace's slices, kernels, ops, tracks, flows and counters");
    command->footer("Runs SQL (SQLite) over tables that read the loaded trace in place: slice, kernel, op, thread,\n"
                    "process, track, flow, counter; arg(slice_id, 'name') and args(slice_id) read a slice's args.\n"
                    "Times are in ns. The schema: docs/query.md. Rows are printed as they come (tab-separated\n"
                    "by default), so a huge result is never held in memory.\n"
                    "--json prints {\"columns\": [...], \"rows\": [{column: value, ...}, ...]}.");
    auto* json = command->add_flag("--json", options->json, "rows as JSON");
    command->add_flag("--csv", options->csv, "rows as CSV with a header line")->excludes(json);
    command->add_option("FILE", options->path, "trace (.json or .json.gz)")->type_name("")->required();
    command->add_option("SQL", options->sql, "the query, e.g. 'SELECT name, sum(dur) FROM slice GROUP BY name'")
        ->type_name("")
        ->required();
    command->callback([options] { exitWith(runQuery(*options)); });
}

} // namespace ks::cli
