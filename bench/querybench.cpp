// SQL over a large trace (issue 41): `SELECT name, count(*), sum(dur) FROM slice GROUP BY name`
// on the ~745k-event trace (or FILE): load time (what `info` spends), query time, and load plus
// query against the load alone (the target: at most 2x); then a few cheap lookups.
#include "bench/measure.h"
#include "bench/tiler/tracetiler.h"
#include "core/loading/loader.h"
#include "core/query/tracedatabase.h"

#include <cstdio>
#include <filesystem>
#include <string>

using namespace ks;
using bench::Clock;
using bench::msSince;

namespace {

// Runs `sql` to the end; returns the rows read, -1 on an error.
long long runQuery(query::TraceDatabase& db, const std::string& sql)
{
    query::QueryError error;
    auto cursor = db.query(sql, error);
    long long rows = 0;
    while (cursor && cursor->next(error))
        ++rows;
    if (error.failed()) {
        std::fprintf(stderr, "%s: %s\n", sql.c_str(), error.message.c_str());
        return -1;
    }
    return rows;
}

} // namespace

int main(int argc, char** argv)
{
    const std::string path = argc > 1 ? argv[1] : bench::largeTracePath(KS_BENCH_DATA);
    auto start = Clock::now();
    const auto loaded = loadTraceFile(path);
    const double loadMs = msSince(start);
    if (!loaded.ok()) {
        std::fprintf(stderr, "%s: the load failed\n", path.c_str());
        return 1;
    }
    std::printf("%s: %.1f MB, %zu slices\n", path.c_str(), double(std::filesystem::file_size(path)) / 1e6,
                loaded.trace->slices().size());
    std::printf("load (info's load)                  %8.1f ms\n", loadMs);

    query::TraceDatabase db(loaded.trace);
    const std::string groupBy = "SELECT name, count(*), sum(dur) FROM slice GROUP BY name";
    start = Clock::now();
    const long long groups = runQuery(db, groupBy);
    const double queryMs = msSince(start);
    std::printf("GROUP BY name query                 %8.1f ms  (%lld rows)\n", queryMs, groups);
    std::printf("load + query                        %8.1f ms  = %.2f x the load (target <= 2)\n", loadMs + queryMs,
                (loadMs + queryMs) / loadMs);

    const TimeNs middle = (loaded.trace->startTime() + loaded.trace->endTime()) / 2;
    const std::pair<const char*, std::string> lookups[] = {
        {"count(*) FROM kernel", "SELECT count(*) FROM kernel"},
        {"slice WHERE id = ? (1000 times)",
         "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999) "
         "SELECT s.name FROM n JOIN slice s ON s.id = n.i * 37"},
        {"slices in a 1 ms window",
         "SELECT count(*) FROM slice WHERE ts >= " + std::to_string(middle) + " AND ts < "
             + std::to_string(middle + 1000000)},
        {"same window, full scan (+ts)",
         "SELECT count(*) FROM slice WHERE +ts >= " + std::to_string(middle) + " AND +ts < "
             + std::to_string(middle + 1000000)},
    };
    for (const auto& [label, sql] : lookups) {
        start = Clock::now();
        const long long rows = runQuery(db, sql);
        std::printf("%-35s %8.1f ms  (%lld rows)\n", label, msSince(start), rows);
    }
    return 0;
}
