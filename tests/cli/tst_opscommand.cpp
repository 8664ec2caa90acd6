// kinetoscope-cli ops: torch's text table, --json rows, --sort/--top and bad options; FLOPs,
// TFLOP/s and % of peak per row (--peak-tflops / --peak-tbps, absurd dims).
#include "clirun.h"
#include "testfiles.h"
#include "testtext.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <fstream>

class TestOpsCommand : public QObject {
    Q_OBJECT
private:
    static std::string mlpOps() { return std::string(KS_TEST_DATA "/mlp_ops.pt.trace.json.gz"); }

    static std::string baseline() { return std::string(KS_TEST_DATA "/train_baseline.pt.trace.json.gz"); }

    static int run(const std::vector<std::string>& args, std::string* out = nullptr, std::string* err = nullptr)
    {
        return kstest::runCli(kstest::concat({"ops"}, args), out, err);
    }

    static nlohmann::json rowNamed(const nlohmann::json& rows, const std::string& name)
    {
        for (const auto& r : rows) {
            if (r["name"] == name && !r["device"].get<bool>())
                return r;
        }
        return {};
    }

private Q_SLOTS:
    void textTableLikeTorch()
    {
        std::string out;
        QCOMPARE(run({mlpOps()}, &out), 0);
        const std::string& text = out;
        const std::vector<std::string> lines = kstest::split(text, '\n');
        QVERIFY(kstest::contains(lines[1], "Name    Self CPU %      Self CPU   CPU total %"));
        QVERIFY(kstest::trimmed(lines[1]).ends_with("# of Calls"));
        // Sorted by CUDA total; the GPU-side fp16_step first, as in torch's table.
        QVERIFY(kstest::trimmed(lines[3]).starts_with("fp16_step"));
        QVERIFY(kstest::contains(lines[3], "118.62%"));
        QVERIFY(kstest::contains(text, "Self CPU time total: 12.565ms\n"));
        QVERIFY(kstest::contains(text, "Self CUDA time total: 1.047ms\n"));
        // mlp_ops has no ProfilerStep: its 4 Optimizer.step#SGD.step iterations are the steps.
        QVERIFY(kstest::contains(text, "Steps: 4 from Optimizer.step\n"));
        QCOMPARE(lines.size(), 81 + 3 + 1 + 3 + 1); // rules, header, rows, footer, final newline
    }

    void jsonSortedAndCut()
    {
        std::string out;
        QCOMPARE(run({"--json", "--sort", "self_cpu", "--top", "3", mlpOps()}, &out), 0);
        const auto rows = nlohmann::json::parse(out);
        QCOMPARE(rows.size(), std::size_t(3));
        QCOMPARE(rows[0]["name"].get<std::string>(), std::string("Activity Buffer Request"));
        QCOMPARE(rows[0]["calls"].get<int>(), 1);
        QCOMPARE(rows[0]["self_cpu_us"].get<double>(), 2936.129);
        QCOMPARE(rows[0]["self_cuda_us"].get<double>(), 61.023);
        QCOMPARE(rows[1]["name"].get<std::string>(), std::string("fp32_step"));
        QCOMPARE(rows[1]["cpu_total_us"].get<double>(), 6784.311);
        for (const char* key : {"name", "calls", "self_cpu_us", "cpu_total_us", "self_cuda_us", "cuda_total_us"})
            QVERIFY(rows[2].contains(key));
    }

    // train_baseline's fp32 GEMMs (H200, TF32 off): aten::mm's FLOPs are 2·M·N·K over its
    // 48 calls (16 shapes of 3 steps: computed from the dims in the core test), its % of peak
    // is against the H200's FP32 roof, and the figures follow --peak-tflops.
    void jsonRowsCarryFlopsAndPeakFractions()
    {
        std::string out;
        QCOMPARE(run({"--json", baseline()}, &out), 0);
        const auto rows = nlohmann::json::parse(out);
        const auto mm = rowNamed(rows, "aten::mm");
        QCOMPARE(mm["calls"].get<int>(), 48);
        QCOMPARE(mm["flops"].get<std::int64_t>(), std::int64_t(309237645312));
        const double tflops = double(mm["flops"].get<std::int64_t>()) / (mm["cuda_total_us"].get<double>() * 1e6);
        QVERIFY(std::abs(mm["tflops_per_s"].get<double>() - tflops) < 1e-3);
        QVERIFY(std::abs(mm["peak_fraction"].get<double>() - tflops / 67.0) < 1e-3);
        QVERIFY(std::abs(mm["tf32_peak_fraction"].get<double>() - tflops / 494.5) < 1e-3);
        QCOMPARE(mm["peak"].get<std::string>(), std::string("fp32"));
        QCOMPARE(mm["bound"].get<std::string>(), std::string("compute"));
        // Rows without a rule carry the fields as null.
        const auto step = rowNamed(rows, "AddmmBackward0");
        QVERIFY(step.contains("flops") && step["flops"].is_null() && step["bound"].is_null());
        // A lower roof: the same TFLOP/s is a larger fraction of it.
        QCOMPARE(run({"--json", "--peak-tflops", "fp32=50", baseline()}, &out), 0);
        const auto custom = rowNamed(nlohmann::json::parse(out), "aten::mm");
        QVERIFY(std::abs(custom["peak_fraction"].get<double>() - tflops / 50.0) < 1e-3);
        // Per shape: the rows of one name add up to its whole.
        QCOMPARE(run({"--json", "--group-by-shape", baseline()}, &out), 0);
        std::int64_t byShape = 0;
        for (const auto& r : nlohmann::json::parse(out)) {
            if (r["name"] == "aten::mm")
                byShape += r["flops"].get<std::int64_t>();
        }
        QCOMPARE(byShape, mm["flops"].get<std::int64_t>());
        QCOMPARE(run({"--roofline", baseline()}, &out), 0);
        QVERIFY(kstest::contains(out, "Peaks: NVIDIA H200"));
        QVERIFY(kstest::contains(out, "TFLOP/s"));
    }

    void absurdDimsGetNoNumberAndAWarning()
    {
        kstest::TempDir dir;
        const std::string path = dir.filePath("absurd.json");
        std::ofstream(path) << R"({"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 5,
 "args": {"External id": 1, "Input type": ["float", "float"], "Input Dims": [[-4, 8], [8, 8]]}},
{"ph": "X", "cat": "cpu_op", "name": "aten::bmm", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
 "args": {"External id": 2, "Input type": ["float", "float"],
          "Input Dims": [[4294967296, 4294967296, 8], [4294967296, 8, 4294967296]]}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
 "args": {"External id": 3, "Input type": ["float", "float"], "Input Dims": [[4, 8], [8, 2]]}}
]})";
        std::string out, err;
        QCOMPARE(run({"--json", path}, &out, &err), 0);
        QVERIFY2(kstest::contains(err, "warning: 2 ops have absurd shapes"), err.c_str());
        const auto rows = nlohmann::json::parse(out);
        QVERIFY(rowNamed(rows, "aten::mm")["flops"].is_null()); // one of its two calls is unknown
        QVERIFY(rowNamed(rows, "aten::bmm")["flops"].is_null());
        QVERIFY(!rowNamed(rows, "aten::mm")["unknown_reason"].get<std::string>().empty());
    }

    void rejectsBadOptions()
    {
        QCOMPARE(run({"--peak-tflops", "fp99=3", mlpOps()}), 2);
        QCOMPARE(run({"--peak-tbps", "-1", mlpOps()}), 2);
        QCOMPARE(run({"--sort", "bogus", mlpOps()}), 2);
        QCOMPARE(run({"--top", "x", mlpOps()}), 2);
        QCOMPARE(run({}), 2);
        QCOMPARE(run({"/nonexistent.json"}), 1);
    }
};

QTEST_GUILESS_MAIN(TestOpsCommand)
#include "tst_opscommand.moc"
