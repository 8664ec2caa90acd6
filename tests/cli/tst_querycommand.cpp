// kinetoscope-cli query: the JSON contract, CSV, numbers equal to `info --json` and `ops --json`,
// and bad SQL or options (exit 1 with SQLite's message and position, exit 2).
#include "clirun.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <cmath>
#include <map>

class TstQueryCommand : public QObject {
    Q_OBJECT
private:
    static std::string mlpOps() { return std::string(KS_TEST_DATA "/mlp_ops.pt.trace.json.gz"); }

    static int run(const std::vector<std::string>& args, std::string* out = nullptr, std::string* err = nullptr)
    {
        return kstest::runCli(args, out, err);
    }

    static nlohmann::json queryJson(const std::string& file, const std::string& sql)
    {
        return kstest::runCliJson({"query", "--json", file, sql});
    }

private Q_SLOTS:
    void jsonHoldsColumnsAndRows()
    {
        const auto result = queryJson(mlpOps(), "SELECT id, name, dur FROM slice WHERE id < 3");
        QCOMPARE(result.size(), std::size_t(2));
        QVERIFY(result["columns"] == nlohmann::json({"id", "name", "dur"}));
        QCOMPARE(result["rows"].size(), std::size_t(3));
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(result["rows"][i]["id"].get<int>(), i);
            QCOMPARE(result["rows"][i].size(), std::size_t(3));
        }
    }

    void sliceCountIsInfos()
    {
        std::string out;
        QCOMPARE(run({"info", "--json", mlpOps()}, &out), 0);
        const auto info = nlohmann::json::parse(out);
        const auto result = queryJson(mlpOps(), "SELECT count(*) AS n FROM slice");
        QCOMPARE(result["rows"][0]["n"].get<std::int64_t>(), info["slices"].get<std::int64_t>());
        QVERIFY(info["slices"].get<std::int64_t>() > 700);
    }

    // Every CPU op's calls and total time as `ops --json` gives them, from SQL: torch folds an
    // op that is the only child of an op of the same name into it (_remove_dup_nodes).
    void opTotalsAreOpss()
    {
        std::string out;
        QCOMPARE(run({"ops", "--json", mlpOps()}, &out), 0);
        std::map<std::string, nlohmann::json> ops;
        for (const auto& row : nlohmann::json::parse(out)) {
            if (!row["device"].get<bool>())
                ops[row["name"]] = row;
        }
        const auto result = queryJson(mlpOps(),
                                      std::string("SELECT o.name, count(*) AS calls, sum(o.dur) AS total FROM op o "
                                                  "WHERE NOT EXISTS (SELECT 1 FROM op p WHERE p.track = o.track "
                                                  "AND p.depth = o.depth - 1 AND p.name = o.name AND p.ts <= o.ts "
                                                  "AND p.ts + p.dur >= o.ts + o.dur AND (SELECT count(*) FROM op c "
                                                  "WHERE c.track = o.track AND c.depth = o.depth AND c.ts >= p.ts "
                                                  "AND c.ts < p.ts + p.dur) = 1) GROUP BY o.name"));
        QCOMPARE(result["rows"].size(), std::size_t(40));
        for (const auto& row : result["rows"]) {
            const auto& op = ops.at(row["name"].get<std::string>());
            QCOMPARE(row["calls"].get<std::int64_t>(), op["calls"].get<std::int64_t>());
            QCOMPARE(row["total"].get<std::int64_t>(), std::llround(op["cpu_total_us"].get<double>() * 1000));
        }
    }

    void csvAndText()
    {
        std::string out;
        QCOMPARE(run({"query", "--csv", mlpOps(), "SELECT count(*) AS n, 'a,b' AS s FROM kernel"}, &out), 0);
        QCOMPARE(out, std::string("n,s\r\n86,\"a,b\"\r\n"));
        QCOMPARE(run({"query", mlpOps(), "SELECT count(*) AS n, 'a,b' AS s FROM kernel"}, &out), 0);
        QCOMPARE(out, std::string("n\ts\n86\ta,b\n"));
    }

    void badQueriesSayWhere()
    {
        std::string out, err;
        QCOMPARE(run({"query", mlpOps(), "SELECT * FORM slice"}, &out, &err), 1);
        QVERIFY(out.empty());
        QCOMPARE(err,
                 std::string("kinetoscope-cli query: near \"FORM\": syntax error (at offset 9)\n"
                             "  SELECT * FORM slice\n"
                             "           ^\n"));
        // Failing midway: the rows so far are out (streamed), the JSON is closed, exit 1.
        QCOMPARE(run({std::string("query"), std::string("--json"), mlpOps(),
                      std::string("SELECT CASE WHEN id < 3 THEN id ELSE json('{') END AS v FROM slice")},
                     &out, &err),
                 1);
        QCOMPARE(nlohmann::json::parse(out)["rows"].size(), std::size_t(3));
        QVERIFY(kstest::contains(err, "malformed JSON"));
        QCOMPARE(run({"query", "/nonexistent.json", "SELECT 1"}), 1);
        QCOMPARE(run({"query", "--json", "--csv", mlpOps(), "SELECT 1"}), 2);
        QCOMPARE(run({"query", mlpOps()}), 2);
    }
};

QTEST_GUILESS_MAIN(TstQueryCommand)
#include "tst_querycommand.moc"
