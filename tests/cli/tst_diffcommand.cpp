// kinetoscope-cli diff --json: the JSON contract on train_baseline vs train_optimized,
// the text summary, a failing side, and two ranks of one merged collected file.
#include "clirun.h"
#include "core/analysis/diff.h"
#include "core/loading/loader.h"
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

    // --base-rank / --new-rank: rank 0 against rank 1 of the merged NCCL file (rank 1 spends
    // 1.679 ms a step longer in its NCCL kernels), the same report as core's diff of the two
    // ranks the Ranks dock splits off; a rank the file lacks names those it has.
    void ranksOfAMergedFile()
    {
        const std::string merged = data("collected_nccl_merged.pt.trace.json.gz");
        std::string out, err;
        QCOMPARE(run({"--json", "--top", "0", "--base-rank", "0", "--new-rank", "1", merged, merged}, &out), 0);
        const auto j = nlohmann::json::parse(out);
        QCOMPARE(j["base_rank"].get<int>(), 0);
        QCOMPARE(j["new_rank"].get<int>(), 1);
        QCOMPARE(j["base"]["steps"].get<int>(), 10);
        ks::analysis::Workspace ranks;
        ranks.add(ks::loadTraceFile(merged).trace, merged);
        const auto report = ks::analysis::diffTraces(*ranks.memberOfRank(0), *ranks.memberOfRank(1));
        QCOMPARE(j["summary"].get<std::string>(), report.summary);
        QCOMPARE(j["kernels"].size(), report.kernels.size());
        QVERIFY2(kstest::contains(report.summary, "NCCL kernels +1.679 ms/step"), report.summary.c_str());
        QCOMPARE(run({"--base-rank", "1", "--new-rank", "0", merged, merged}, &out), 0);
        QVERIFY(kstest::contains(out, "rank 1: 10 steps"));
        QVERIFY(kstest::contains(out,
                                 "NCCL kernels \xE2\x88\x92"
                                 "1.679 ms/step"));
        QCOMPARE(run({"--new-rank", "3", merged, merged}, nullptr, &err), 1);
        QVERIFY2(kstest::contains(err, "has no rank 3 (its ranks: 0, 1)"), err.c_str());
        QCOMPARE(run({"--base-rank", "-1", merged, merged}, nullptr, &err), 2);
    }
};

QTEST_GUILESS_MAIN(TestDiffCommand)
#include "tst_diffcommand.moc"
