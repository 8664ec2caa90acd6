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
    static QString mlpOps() { return QStringLiteral(KS_TEST_DATA "/mlp_ops.pt.trace.json.gz"); }

    static int run(const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr)
    {
        return kstest::runCli(args, out, err);
    }

    static nlohmann::json queryJson(const QString& file, const QString& sql)
    {
        return kstest::runCliJson({QStringLiteral("query"), QStringLiteral("--json"), file, sql});
    }

private Q_SLOTS:
    void jsonHoldsColumnsAndRows()
    {
        const auto result = queryJson(mlpOps(), QStringLiteral("SELECT id, name, dur FROM slice WHERE id < 3"));
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
        QByteArray out;
        QCOMPARE(run({QStringLiteral("info"), QStringLiteral("--json"), mlpOps()}, &out), 0);
        const auto info = nlohmann::json::parse(out.toStdString());
        const auto result = queryJson(mlpOps(), QStringLiteral("SELECT count(*) AS n FROM slice"));
        QCOMPARE(result["rows"][0]["n"].get<std::int64_t>(), info["slices"].get<std::int64_t>());
        QVERIFY(info["slices"].get<std::int64_t>() > 700);
    }

    // Every CPU op's calls and total time as `ops --json` gives them, from SQL: torch folds an
    // op that is the only child of an op of the same name into it (_remove_dup_nodes).
    void opTotalsAreOpss()
    {
        QByteArray out;
        QCOMPARE(run({QStringLiteral("ops"), QStringLiteral("--json"), mlpOps()}, &out), 0);
        std::map<std::string, nlohmann::json> ops;
        for (const auto& row : nlohmann::json::parse(out.toStdString())) {
            if (!row["device"].get<bool>())
                ops[row["name"]] = row;
        }
        const auto result = queryJson(mlpOps(),
                                      QStringLiteral("SELECT o.name, count(*) AS calls, sum(o.dur) AS total FROM op o "
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
        QByteArray out;
        QCOMPARE(run({QStringLiteral("query"), QStringLiteral("--csv"), mlpOps(),
                      QStringLiteral("SELECT count(*) AS n, 'a,b' AS s FROM kernel")},
                     &out),
                 0);
        QCOMPARE(out, QByteArray("n,s\r\n86,\"a,b\"\r\n"));
        QCOMPARE(
            run({QStringLiteral("query"), mlpOps(), QStringLiteral("SELECT count(*) AS n, 'a,b' AS s FROM kernel")},
                &out),
            0);
        QCOMPARE(out, QByteArray("n\ts\n86\ta,b\n"));
    }

    void badQueriesSayWhere()
    {
        QByteArray out, err;
        QCOMPARE(run({QStringLiteral("query"), mlpOps(), QStringLiteral("SELECT * FORM slice")}, &out, &err), 1);
        QVERIFY(out.isEmpty());
        QCOMPARE(err,
                 QByteArray("kinetoscope-cli query: near \"FORM\": syntax error (at offset 9)\n"
                            "  SELECT * FORM slice\n"
                            "           ^\n"));
        // Failing midway: the rows so far are out (streamed), the JSON is closed, exit 1.
        QCOMPARE(run({QStringLiteral("query"), QStringLiteral("--json"), mlpOps(),
                      QStringLiteral("SELECT CASE WHEN id < 3 THEN id ELSE json('{') END AS v FROM slice")},
                     &out, &err),
                 1);
        QCOMPARE(nlohmann::json::parse(out.toStdString())["rows"].size(), std::size_t(3));
        QVERIFY(err.contains("malformed JSON"));
        QCOMPARE(run({QStringLiteral("query"), QStringLiteral("/nonexistent.json"), QStringLiteral("SELECT 1")}), 1);
        QCOMPARE(run({QStringLiteral("query"), QStringLiteral("--json"), QStringLiteral("--csv"), mlpOps(),
                      QStringLiteral("SELECT 1")}),
                 2);
        QCOMPARE(run({QStringLiteral("query"), mlpOps()}), 2);
    }
};

QTEST_GUILESS_MAIN(TstQueryCommand)
#include "tst_querycommand.moc"
