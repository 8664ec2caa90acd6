// SQL over the trace (core/query): counts and sums cross-checked against the model, the
// operator table and the kernel table on real traces; the cheap plans (id = ?, ts ranges,
// track = ?) give what a full scan gives; bad SQL is an error with its position.
#include "core/query/queryoutput.h"
#include "core/query/slicelookup.h"
#include "core/query/tracedatabase.h"
#include "core/stats/kernelstats.h"
#include "core/stats/operatortable.h"
#include "fixtureloader.h"

#include <QTest>

#include <sstream>

using namespace ks;
using namespace ks::query;

namespace {

// The rows of `sql` as text cells (NULL as "NULL"); fails the test on an SQL error.
std::vector<std::vector<std::string>> rowsOf(TraceDatabase& db, const std::string& sql)
{
    QueryError error;
    auto cursor = db.query(sql, error);
    if (!cursor)
        (std::fprintf(stderr, "%s: %s\n", sql.c_str(), error.message.c_str()), std::abort());
    std::vector<std::vector<std::string>> rows;
    while (cursor->next(error)) {
        std::vector<std::string> row;
        for (int c = 0; c < int(cursor->columns().size()); ++c) {
            const auto v = cursor->value(c);
            switch (v.type) {
            case QueryValue::Type::Null: row.emplace_back("NULL"); break;
            case QueryValue::Type::Integer: row.push_back(std::to_string(v.integer)); break;
            case QueryValue::Type::Real: row.push_back(std::to_string(v.real)); break;
            default: row.emplace_back(v.text); break;
            }
        }
        rows.push_back(std::move(row));
    }
    if (error.failed())
        (std::fprintf(stderr, "%s: %s\n", sql.c_str(), error.message.c_str()), std::abort());
    return rows;
}

std::int64_t integerOf(TraceDatabase& db, const std::string& sql)
{
    const auto rows = rowsOf(db, sql);
    if (rows.size() != 1 || rows[0].size() != 1)
        (std::fprintf(stderr, "%s: not one value\n", sql.c_str()), std::abort());
    return std::stoll(rows[0][0]);
}

} // namespace

class TstTraceDatabase : public QObject {
    Q_OBJECT

private slots:
    void sliceCountAndDurationsAreTheModels()
    {
        const auto trace = testing::fixtureTrace("train_baseline");
        TraceDatabase db(trace);
        TimeNs total = 0;
        for (SliceId s = 0; s < trace->slices().size(); ++s)
            total += trace->slices().duration[s];
        QCOMPARE(integerOf(db, "SELECT count(*) FROM slice"), std::int64_t(trace->slices().size()));
        QCOMPARE(integerOf(db, "SELECT sum(dur) FROM slice"), total);
        const SliceId probe = SliceId(trace->slices().size() / 2);
        const auto row = rowsOf(db, "SELECT name, ts, track, depth FROM slice WHERE id = " + std::to_string(probe));
        QCOMPARE(row.size(), std::size_t(1));
        QCOMPARE(row[0][0], std::string(trace->str(trace->slices().name[probe])));
        QCOMPARE(row[0][1], std::to_string(trace->slices().start[probe]));
        QCOMPARE(row[0][2], std::to_string(trace->trackOf(probe)));
        QCOMPARE(row[0][3], std::to_string(trace->rowOf(probe).depth));
        QCOMPARE(integerOf(db, "SELECT count(*) FROM thread"),
                 std::int64_t(std::count_if(trace->tracks().begin(), trace->tracks().end(),
                                            [](const Track& t) { return t.kind == TrackKind::CpuThread; })));
        QCOMPARE(integerOf(db, "SELECT count(*) FROM track"), std::int64_t(trace->tracks().size()));
        QCOMPARE(integerOf(db, "SELECT count(*) FROM process"), std::int64_t(trace->processes().size()));
        QCOMPARE(integerOf(db, "SELECT sum(slice_count) FROM track"), std::int64_t(trace->slices().size()));
        QCOMPARE(integerOf(db, "SELECT count(*) FROM flow"), std::int64_t(trace->flows().size()));
        std::int64_t samples = 0;
        for (const auto& c : trace->counters())
            samples += std::int64_t(c.time.size());
        QCOMPARE(integerOf(db, "SELECT count(*) FROM counter"), samples);
    }

    void kernelCountIsTheKernelTables()
    {
        for (const char* name : {"train_baseline", "mlp_ops", "multistream"}) {
            const auto trace = testing::fixtureTrace(name);
            TraceDatabase db(trace);
            std::int64_t calls = 0;
            TimeNs total = 0;
            for (const auto& row : computeKernelStats(*trace)) {
                calls += std::int64_t(row.calls);
                total += row.total;
            }
            QVERIFY(calls > 0);
            QCOMPARE(integerOf(db, "SELECT count(*) FROM kernel"), calls);
            QCOMPARE(integerOf(db, "SELECT sum(dur) FROM kernel"), total);
        }
        TraceDatabase db(testing::fixtureTrace("mlp_ops"));
        QCOMPARE(integerOf(db, "SELECT count(*) FROM kernel"), std::int64_t(86)); // 86 "cat": "kernel" in the file
        // Every kernel's launch (flow ac2g) starts at a runtime call.
        QCOMPARE(integerOf(db,
                           "SELECT count(*) FROM kernel k JOIN flow f ON f.slice_in = k.id "
                           "JOIN slice s ON s.id = f.slice_out WHERE s.kind <> 'cuda_runtime' "
                           "AND s.kind <> 'cuda_driver'"),
                 std::int64_t(0));
    }

    void mmTimeIsTheOperatorTables()
    {
        const auto trace = testing::fixtureTrace("mlp_ops");
        TraceDatabase db(trace);
        const OperatorTable table = computeOperatorTable(*trace);
        const auto mm = std::find_if(table.rows.begin(), table.rows.end(),
                                     [](const OperatorRow& r) { return r.name == "aten::mm" && !r.isDevice; });
        QVERIFY(mm != table.rows.end());
        QCOMPARE(integerOf(db, "SELECT sum(dur) FROM slice WHERE name = 'aten::mm'"), mm->cpuTotal);
        QCOMPARE(integerOf(db, "SELECT count(*) FROM op WHERE name = 'aten::mm'"), std::int64_t(mm->calls));
        QCOMPARE(integerOf(db, "SELECT sum(self_dur) FROM op WHERE name = 'aten::mm'"), mm->selfCpu);
    }

    void opArgsComeFromTheFile()
    {
        TraceDatabase db(testing::fixtureTrace("mlp_ops"));
        const auto first = rowsOf(db,
                                  "SELECT external_id, input_dims, input_types, arg(id, 'Ev Idx'), "
                                  "json_extract(args, '$.\"Input Dims\"[1][1]') FROM op WHERE name = 'aten::mm' "
                                  "ORDER BY ts LIMIT 1");
        QCOMPARE(first.size(), std::size_t(1));
        QCOMPARE(first[0][0], std::string("17941"));
        QCOMPARE(first[0][1], std::string("[[256,1024],[1024,4096]]"));
        QCOMPARE(first[0][2], std::string("[\"float\",\"float\"]"));
        QCOMPARE(first[0][3], std::string("20"));
        QCOMPARE(first[0][4], std::string("4096"));
        // The batched column and the per-slice function read the same args for every op.
        QCOMPARE(integerOf(db, "SELECT count(*) FROM op WHERE args IS NOT args(id)"), std::int64_t(0));
        QCOMPARE(integerOf(db, "SELECT count(*) FROM op WHERE external_id IS NOT arg(id, 'External id')"),
                 std::int64_t(0));
        TraceDatabase transformer(testing::fixtureTrace("transformer"));
        QCOMPARE(rowsOf(transformer,
                        "SELECT sequence_number, fwd_thread FROM op WHERE name = 'MeanBackward0' "
                        "ORDER BY ts LIMIT 1")[0],
                 (std::vector<std::string>{"140", "1"}));
        QCOMPARE(rowsOf(db, "SELECT arg(0, 'no such arg'), arg(-1, 'x'), arg(1e12, 'x'), args('x')")[0],
                 (std::vector<std::string>{"NULL", "NULL", "NULL", "NULL"}));
    }

    // ts ranges, id and track lookups are narrowed by the table; `+ts` hides the column from
    // the planner, so SQLite scans everything and checks itself: both must agree.
    void narrowedScansEqualFullScans()
    {
        const auto trace = testing::fixtureTrace("train_baseline");
        TraceDatabase db(trace);
        const TimeNs a = trace->startTime() + (trace->endTime() - trace->startTime()) / 3;
        const TimeNs b = a + (trace->endTime() - trace->startTime()) / 5;
        std::int64_t expected = 0;
        for (SliceId s = 0; s < trace->slices().size(); ++s)
            expected += trace->slices().start[s] >= a && trace->slices().start[s] < b;
        QVERIFY(expected > 100);
        const std::string range = std::to_string(a) + " AND ts < " + std::to_string(b);
        QCOMPARE(integerOf(db, "SELECT count(*) FROM slice WHERE ts >= " + range), expected);
        QCOMPARE(integerOf(db,
                           "SELECT count(*) FROM slice WHERE +ts >= " + std::to_string(a) + " AND +ts < "
                               + std::to_string(b)),
                 expected);
        QCOMPARE(integerOf(db,
                           "SELECT count(*) FROM slice WHERE ts BETWEEN " + std::to_string(a) + ".5 AND "
                               + std::to_string(b) + ".5"),
                 integerOf(db,
                           "SELECT count(*) FROM slice WHERE +ts BETWEEN " + std::to_string(a) + ".5 AND "
                               + std::to_string(b) + ".5"));
        QCOMPARE(integerOf(db, "SELECT count(*) FROM kernel WHERE ts >= " + range),
                 integerOf(db,
                           "SELECT count(*) FROM kernel WHERE +ts >= " + std::to_string(a) + " AND +ts < "
                               + std::to_string(b)));
        for (std::uint32_t t = 0; t < trace->tracks().size(); ++t) {
            const std::string track = std::to_string(t);
            QCOMPARE(integerOf(db, "SELECT count(*) FROM slice WHERE track = " + track),
                     std::int64_t(trace->tracks()[t].sliceCount()));
            QCOMPARE(integerOf(db, "SELECT count(*) FROM slice WHERE track = " + track + " AND ts >= " + range),
                     integerOf(db,
                               "SELECT count(*) FROM slice WHERE +track = " + track + " AND +ts >= " + std::to_string(a)
                                   + " AND +ts < " + std::to_string(b)));
        }
        QCOMPARE(integerOf(db, "SELECT count(*) FROM slice WHERE id IN (0, 5, 5, -1, 1e15, 'x')"), std::int64_t(2));
        QCOMPARE(integerOf(db, "SELECT count(*) FROM slice WHERE track = 1e9"), std::int64_t(0));
        // The plans say which constraints the table took (INDEX 1: the args are read too).
        const auto plan = rowsOf(db, "EXPLAIN QUERY PLAN SELECT name FROM slice WHERE id = 7");
        QVERIFY(plan.back().back().find("INDEX 0:i") != std::string::npos);
        QVERIFY(rowsOf(db, "EXPLAIN QUERY PLAN SELECT args FROM slice WHERE id = 7").back().back().find("INDEX 1:i")
                != std::string::npos);
        const auto tsPlan = rowsOf(db, "EXPLAIN QUERY PLAN SELECT id FROM slice WHERE ts >= 5 AND ts < 9");
        QVERIFY(tsPlan.back().back().find("INDEX 0:gl") != std::string::npos);
        // Scans run in id order: ORDER BY id costs no sort.
        const auto ordered = rowsOf(db, "EXPLAIN QUERY PLAN SELECT id FROM slice ORDER BY id");
        for (const auto& step : ordered)
            QVERIFY(step.back().find("ORDER BY") == std::string::npos);
    }

    // A query row's (track, ts) names the outermost slice starting there: for every slice of a
    // trace, that of its track's slices starting at its ts which has the smallest depth.
    void rowsFindTheirSlice()
    {
        const auto trace = testing::fixtureTrace("train_baseline");
        for (SliceId s = 0; s < trace->slices().size(); ++s) {
            const SliceId found = sliceStartingAt(*trace, trace->trackOf(s), trace->slices().start[s]);
            QVERIFY(found != kNoSlice);
            QCOMPARE(trace->slices().start[found], trace->slices().start[s]);
            QCOMPARE(trace->trackOf(found), trace->trackOf(s));
            QVERIFY(found == s || trace->rowOf(found).depth < trace->rowOf(s).depth);
        }
        QCOMPARE(sliceStartingAt(*trace, -1, 0), kNoSlice);
        QCOMPARE(sliceStartingAt(*trace, 1 << 30, 0), kNoSlice);
        QCOMPARE(sliceStartingAt(*trace, 0, trace->startTime() - 1), kNoSlice);
    }

    void malformedQueriesSayWhere()
    {
        TraceDatabase db(testing::fixtureTrace("mlp_ops"));
        QueryError error;
        QVERIFY(!db.query("SELECT * FORM slice", error));
        QVERIFY(error.message.find("syntax error") != std::string::npos);
        QCOMPARE(error.offset, 9);
        QCOMPARE(error.located("SELECT * FORM slice"),
                 error.message + " (at offset 9)\n  SELECT * FORM slice\n           ^");
        QVERIFY(!db.query("SELECT nope FROM slice", error));
        QCOMPARE(error.message, std::string("no such column: nope"));
        // A column or table of ours misspelt: the message names those like it.
        QVERIFY(!db.query("SELECT cat FROM slice", error));
        QCOMPARE(error.message,
                 std::string("no such column: cat (columns like it: category (slice, kernel, op, flow))"));
        QVERIFY(!db.query("SELECT k.extid FROM kernel k", error));
        QCOMPARE(error.message,
                 std::string("no such column: k.extid (columns like it: external_id (slice, kernel, op))"));
        QVERIFY(!db.query("SELECT * FROM kernels", error));
        QCOMPARE(error.message,
                 std::string(
                     "no such table: kernels (the tables: slice, kernel, op, process, thread, track, flow, counter)"));
        QVERIFY(!db.query("   ", error));
        QCOMPARE(error.message, std::string("no SQL statement"));
        // The position counts from the start of the whole text, not of the failing statement.
        QVERIFY(!db.query("SELECT 1; SELECT * FROM nowhere", error));
        QVERIFY(error.message.find("no such table: nowhere") != std::string::npos);
        // Tables are read-only.
        QVERIFY(!db.query("DELETE FROM slice", error));
        QVERIFY(error.message.find("may not be modified") != std::string::npos);
        auto attach = db.query("ATTACH 'x.db' AS x", error);
        QVERIFY(attach && !attach->next(error));
        QVERIFY(error.message.find("too many attached databases") != std::string::npos);
        // Earlier statements run first; a trailing comment is no statement.
        QCOMPARE(integerOf(db,
                           "CREATE TEMP VIEW mm AS SELECT * FROM slice WHERE name = 'aten::mm'; "
                           "SELECT count(*) FROM mm; -- done"),
                 integerOf(db, "SELECT count(*) FROM op WHERE name = 'aten::mm'"));
    }

    void outputsAreWellFormed()
    {
        TraceDatabase db(testing::fixtureTrace("mlp_ops"));
        QueryError error;
        auto cursor = db.query("SELECT id, name, dur / 1000.0 AS us, NULL AS n, 'a,\"b\"' AS q, x'00ff' AS blob "
                               "FROM slice WHERE id < 2",
                               error);
        QVERIFY(cursor);
        std::ostringstream json;
        QVERIFY(writeQueryResult(*cursor, json, OutputFormat::Json, error));
        const auto parsed = nlohmann::json::parse(json.str());
        QVERIFY(parsed["columns"] == nlohmann::json({"id", "name", "us", "n", "q", "blob"}));
        QCOMPARE(parsed["rows"].size(), std::size_t(2));
        QCOMPARE(parsed["rows"][1]["id"].get<int>(), 1);
        QVERIFY(parsed["rows"][1]["n"].is_null());
        QCOMPARE(parsed["rows"][1]["q"].get<std::string>(), std::string("a,\"b\""));
        QCOMPARE(parsed["rows"][1]["blob"].get<std::string>(), std::string("00ff"));
        cursor = db.query("SELECT 'a,\"b\"' AS q, 1.5 AS r", error);
        std::ostringstream csv;
        QVERIFY(writeQueryResult(*cursor, csv, OutputFormat::Csv, error));
        QCOMPARE(csv.str(), std::string("q,r\r\n\"a,\"\"b\"\"\",1.5\r\n"));
        cursor = db.query("SELECT 1 AS one WHERE 0", error);
        std::ostringstream empty;
        QVERIFY(writeQueryResult(*cursor, empty, OutputFormat::Json, error));
        QCOMPARE(empty.str(), std::string("{\"columns\": [\"one\"], \"rows\": []}\n"));
        // An error midway still closes the JSON.
        cursor = db.query("SELECT CASE WHEN id < 3 THEN id ELSE json('{') END FROM slice", error);
        std::ostringstream broken;
        QVERIFY(!writeQueryResult(*cursor, broken, OutputFormat::Json, error));
        QVERIFY(error.failed());
        QCOMPARE(nlohmann::json::parse(broken.str())["rows"].size(), std::size_t(3));
    }
};

QTEST_GUILESS_MAIN(TstTraceDatabase)
#include "tst_tracedatabase.moc"
