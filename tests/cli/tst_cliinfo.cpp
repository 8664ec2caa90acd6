// `kinetoscope-cli info --json` on every fixture accounts for every traceEvents entry.
#include "testtraces.h"

#include <QtTest>

class TestCliInfo : public QObject {
    Q_OBJECT
private slots:
    void infoJson_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n : {"square", "multistream", "transformer", "mlp_ops", "big"})
            QTest::newRow(n) << n;
    }
    void infoJson()
    {
        QFETCH(QString, name);
        const auto path = kstest::fixture(name.toUtf8().constData());
        QProcess cli;
        cli.start(KS_CLI, {"info", "--json", QString::fromStdString(path)});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        const auto out = nlohmann::json::parse(cli.readAllStandardOutput().toStdString());
        std::map<std::string, std::uint64_t> counts;
        for (auto it = out["counts"].begin(); it != out["counts"].end(); ++it)
            counts[it.key()] = it.value().get<std::uint64_t>();
        QCOMPARE(counts, kstest::domPhaseCategoryCounts(kstest::gunzipFile(path)));
        QVERIFY(out["processes"].size() >= 2);
        QCOMPARE(out["devices"][0]["name"].get<std::string>(), std::string("NVIDIA H200"));
        std::uint64_t slices = 0;
        for (const auto& p : out["processes"])
            for (const auto& t : p["tracks"])
                slices += t["slices"].get<std::uint64_t>();
        QCOMPARE(slices, out["slices"].get<std::uint64_t>());
        // The fixtures are clean torch traces: their unpaired flow halves are information.
        std::uint64_t unpaired = 0;
        for (const auto& [category, flows] : out["flow_categories"].items())
            unpaired += flows["unpaired_starts"].get<std::uint64_t>() + flows["unpaired_ends"].get<std::uint64_t>();
        QCOMPARE(out["info_count"].get<std::uint64_t>(), unpaired);
        QCOMPARE(out["warning_count"].get<std::uint64_t>(), std::uint64_t(0));
    }

    void textAndErrors()
    {
        QProcess cli;
        cli.start(KS_CLI, {"info", QString::fromStdString(kstest::fixture("transformer"))});
        QVERIFY(cli.waitForFinished(60000));
        const QString text = cli.readAllStandardOutput();
        QVERIFY(text.contains("GPU 0 · NVIDIA H200"));
        QVERIFY(text.contains("thread 602 (pt_autograd_0): 1113 slices"));
        QVERIFY(text.contains("ac2g: 240 paired, 4 unpaired starts, 24 unpaired ends"));

        QProcess bad;
        bad.start(KS_CLI, {"info", "/nonexistent.json"});
        QVERIFY(bad.waitForFinished(60000));
        QCOMPARE(bad.exitCode(), 1);
        QVERIFY(QString(bad.readAllStandardError()).contains("/nonexistent.json: cannot open"));
    }
};

QTEST_GUILESS_MAIN(TestCliInfo)
#include "tst_cliinfo.moc"
