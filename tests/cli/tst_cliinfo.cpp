// `kinetoscope-cli info --json` on every fixture accounts for every traceEvents entry.
#include "clirun.h"
#include "testtext.h"
#include "testtraces.h"

#include <QtTest>

class TestCliInfo : public QObject {
    Q_OBJECT
private slots:
    void infoJson_data()
    {
        QTest::addColumn<std::string>("name");
        for (const char* n : {"square", "multistream", "transformer", "mlp_ops", "big"})
            QTest::newRow(n) << std::string(n);
    }
    void infoJson()
    {
        QFETCH(std::string, name);
        const auto path = kstest::fixture(name.c_str());
        const auto out = kstest::runCliJson({"info", "--json", path});
        QVERIFY(out.is_object());
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
        std::string out, err;
        QCOMPARE(kstest::runCli({"info", kstest::fixture("transformer")}, &out), 0);
        const std::string text = out;
        QVERIFY(kstest::contains(text, "GPU 0 · NVIDIA H200"));
        QVERIFY(kstest::contains(text, "thread 602 (pt_autograd_0): 1113 slices"));
        QVERIFY(kstest::contains(text, "ac2g: 240 paired, 4 unpaired starts, 24 unpaired ends"));

        QCOMPARE(kstest::runCli({"info", "/nonexistent.json"}, nullptr, &err), 1);
        QVERIFY(kstest::contains(std::string(err), "/nonexistent.json: cannot open"));
    }
};

QTEST_GUILESS_MAIN(TestCliInfo)
#include "tst_cliinfo.moc"
