// kinetoscope-cli diff --json: the JSON contract on train_baseline vs train_optimized,
// the text summary, and a failing side.
#include "clirun.h"
#include "testtext.h"

#include <nlohmann/json.hpp>

#include <QTest>

class TestDiffCommand : public QObject {
    Q_OBJECT
private:
    static std::string data(const char* name) { return std::string(KS_TEST_DATA "/") + name; }

    static int run(const std::vector<std::string>& args, std::string* out = nullptr, std::string* err = nullptr)
    {
        return kstest::runCli(kstest::concat({"diff"}, args), out, err);
    }

private Q_SLOTS:
    void jsonContract()
    {
        std::string out;
        QCOMPARE(run({"--json", "--top", "5", data("train_baseline.pt.trace.json.gz"),
                      data("train_optimized.pt.trace.json.gz")},
                     &out),
                 0);
        const auto j = nlohmann::json::parse(out);
        // Mean ProfilerStep#3..5 durations: (13023.487 + 11966.639 + 11893.25) / 3 and
        // (6866.176 + 7500.183 + 7126.709) / 3 µs.
        QCOMPARE(j["base"]["steps"].get<int>(), 3);
        // (rounded to the ns)
        QVERIFY(std::fabs(j["base"]["step_time_us"].get<double>() - (13023.487 + 11966.639 + 11893.25) / 3) < 0.001);
        QVERIFY(std::fabs(j["new"]["step_time_us"].get<double>() - (6866.176 + 7500.183 + 7126.709) / 3) < 0.001);
        QVERIFY(j["base"]["file"].get<std::string>().ends_with("train_baseline.pt.trace.json.gz"));
        QVERIFY(std::fabs(j["speedup"].get<double>() - 12294.4586667 / 7164.356) < 1e-6);
        QCOMPARE(j["categories"][0]["name"].get<std::string>(), std::string("Kernel"));
        QVERIFY(j["categories"][0]["delta_us"].get<double>() < 0);
        QCOMPARE(j["kernels"].size(), std::size_t(5));
        for (const char* key : {"name", "base_count", "new_count", "base_us", "new_us", "delta_us"})
            QVERIFY(j["kernels"][0].contains(key));
        for (const char* key : {"name", "base_calls", "new_calls", "base_self_cpu_us", "new_self_cpu_us",
                                "base_device_us", "new_device_us", "delta_us"})
            QVERIFY(j["ops"][0].contains(key));
        for (std::size_t i = 1; i < 5; ++i) {
            QVERIFY(std::fabs(j["kernels"][i - 1]["delta_us"].get<double>())
                    >= std::fabs(j["kernels"][i]["delta_us"].get<double>()));
            QVERIFY(std::fabs(j["ops"][i - 1]["delta_us"].get<double>())
                    >= std::fabs(j["ops"][i]["delta_us"].get<double>()));
        }
        QCOMPARE(j["kernel_families"][0]["name"].get<std::string>(), std::string("GEMM"));
        QVERIFY(j["summary"].get<std::string>().find("GEMM kernels") != std::string::npos);
    }

    void itemOnlyOnBase()
    {
        std::string out;
        QCOMPARE(run({"--json", "--top", "0", data("train_baseline.pt.trace.json.gz"),
                      data("train_optimized.pt.trace.json.gz")},
                     &out),
                 0);
        const auto j = nlohmann::json::parse(out);
        bool found = false;
        for (const auto& op : j["ops"]) {
            if (op["name"] == "aten::item") {
                found = true;
                QVERIFY(op["base_calls"].get<int>() > 0);
                QCOMPARE(op["new_calls"].get<int>(), 0);
            }
        }
        QVERIFY(found);
    }

    void textAndErrors()
    {
        std::string out, err;
        QCOMPARE(run({data("train_baseline.pt.trace.json.gz"), data("train_optimized.pt.trace.json.gz")}, &out), 0);
        QVERIFY(kstest::contains(out, "step time 12.294 ms \xE2\x86\x92 7.164 ms (1.72\xC3\x97 faster)"));
        QVERIFY(kstest::contains(out, "Kernels (per step)"));
        QCOMPARE(run({data("train_baseline.pt.trace.json.gz"), data("missing.json")}, nullptr, &err), 1);
        QVERIFY(kstest::contains(err, "NEW "));
        QVERIFY(kstest::contains(err, "missing.json"));
        QCOMPARE(run({data("train_baseline.pt.trace.json.gz")}), 2);
    }
};

QTEST_GUILESS_MAIN(TestDiffCommand)
#include "tst_diffcommand.moc"
