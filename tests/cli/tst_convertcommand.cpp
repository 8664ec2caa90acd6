// kinetoscope-cli convert: every fixture converted (.json.gz → .json → .json.gz) gives the same
// `ops` and `gpu` output as the original; several inputs merge; bad input and usage errors.
#include "clirun.h"
#include "testfiles.h"
#include "testtext.h"

#include <nlohmann/json.hpp>

#include <QTest>

class TestConvertCommand : public QObject {
    Q_OBJECT
private:
    static std::string fixture(const std::string& name)
    {
        return std::string(KS_TEST_DATA "/") + name + ".pt.trace.json.gz";
    }

    static int run(const std::vector<std::string>& args, std::string* out = nullptr, std::string* err = nullptr)
    {
        return kstest::runCli(args, out, err, 300000);
    }

    static std::string output(const std::vector<std::string>& args)
    {
        std::string out;
        const int code = run(args, &out);
        return code == 0 ? out : std::string("exit ") + std::to_string(code);
    }

private Q_SLOTS:
    void opsAndGpuUnchanged_data()
    {
        QTest::addColumn<std::string>("name");
        for (const char* name : {"square", "multistream", "transformer", "mlp_ops", "big"})
            QTest::newRow(name) << std::string(name);
    }
    void opsAndGpuUnchanged()
    {
        QFETCH(std::string, name);
        kstest::TempDir dir;
        const std::string plain = dir.filePath(name + ".pt.trace.json");
        const std::string gz = dir.filePath(name + ".again.pt.trace.json.gz");
        std::string err;
        QCOMPARE(run({"convert", fixture(name), plain}, nullptr, &err), 0);
        QVERIFY2(kstest::contains(err, "convert: wrote"), err.c_str());
        QVERIFY2(!kstest::contains(err, "warning"), err.c_str());
        QCOMPARE(run({"convert", "--gzip", plain, gz}), 0);
        QCOMPARE(kstest::readFile(gz).substr(0, 2), std::string("\x1f\x8b"));
        for (const std::string& converted : {plain, gz}) {
            QCOMPARE(output({"ops", "--json", converted}), output({"ops", "--json", fixture(name)}));
            QCOMPARE(output({"ops", converted}), output({"ops", fixture(name)}));
            QCOMPARE(output({"gpu", converted}), output({"gpu", fixture(name)}));
            auto gpuJson = [](const std::string& path) {
                auto j = nlohmann::json::parse(output({"gpu", "--json", path}), nullptr, false);
                if (j.is_object())
                    j.erase("file");
                return j;
            };
            QVERIFY(gpuJson(converted) == gpuJson(fixture(name)));
        }
        // `info` counts every kind the same, but for the process_name that kineto's text pids
        // ("Spans", "Traces") get when they become integers.
        const auto kinds = [](const std::string& path) {
            auto j = nlohmann::json::parse(output({"info", "--json", path}));
            return j["kinds"];
        };
        auto converted = kinds(gz), original = kinds(fixture(name));
        const std::string metadata = "metadata events (M)";
        QVERIFY(converted[metadata].get<int>() > original[metadata].get<int>());
        converted.erase(metadata);
        original.erase(metadata);
        QCOMPARE(converted.dump(), original.dump());
    }

    void mergesInputs()
    {
        kstest::TempDir dir;
        const std::string merged = dir.filePath("merged.pt.trace.json");
        QCOMPARE(run({"convert", fixture(std::string("square")), fixture(std::string("square")), merged}), 0);
        const auto info = [](const std::string& path) {
            return nlohmann::json::parse(output({"info", "--json", path}));
        };
        const auto one = info(fixture("square"));
        const auto two = info(merged);
        QCOMPARE(two["slices"].get<int>(), 2 * one["slices"].get<int>());
        QCOMPARE(two["flows"].get<int>(), 2 * one["flows"].get<int>());
        for (const auto& p : two["processes"])
            QVERIFY(p["pid"].is_number_integer());
        // The second copy's launches still reach their kernels: paired flows doubled too.
        QCOMPARE(two["flow_categories"]["ac2g"]["paired"].get<int>(),
                 2 * one["flow_categories"]["ac2g"]["paired"].get<int>());
    }

    void errors()
    {
        kstest::TempDir dir;
        std::string err;
        QCOMPARE(run({"convert", fixture("square")}, nullptr, &err), 2);
        QVERIFY(kstest::contains(err, "usage"));
        QCOMPARE(run({"convert", "--bogus", "a", "b"}), 2);
        QCOMPARE(run({"convert", "/nonexistent.json", dir.filePath("o.json")}, nullptr, &err), 1);
        QVERIFY2(kstest::contains(err, "/nonexistent.json"), err.c_str());
        QCOMPARE(run({"convert", fixture(std::string("square")), "/nonexistent-dir/o.json"}, nullptr, &err), 1);
        QVERIFY2(kstest::contains(err, "/nonexistent-dir/o.json"), err.c_str());
        QCOMPARE(run({"convert", "--help"}), 0);
    }
};

QTEST_GUILESS_MAIN(TestConvertCommand)
#include "tst_convertcommand.moc"
