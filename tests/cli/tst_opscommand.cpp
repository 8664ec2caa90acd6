// kinetoscope-cli ops: torch's text table, --json rows, --sort/--top and bad options; FLOPs,
// TFLOP/s and % of peak per row (--peak-tflops / --peak-tbps, absurd dims).
#include "clirun.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <fstream>

class TestOpsCommand : public QObject {
    Q_OBJECT
private:
    static QString mlpOps() { return QStringLiteral(KS_TEST_DATA "/mlp_ops.pt.trace.json.gz"); }

    static QString baseline() { return QStringLiteral(KS_TEST_DATA "/train_baseline.pt.trace.json.gz"); }

    static int run(const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr)
    {
        return kstest::runCli(QStringList{QStringLiteral("ops")} + args, out, err);
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
        QByteArray out;
        QCOMPARE(run({mlpOps()}, &out), 0);
        const QString text = QString::fromUtf8(out);
        const QStringList lines = text.split(QLatin1Char('\n'));
        QVERIFY(lines[1].contains(QLatin1String("Name    Self CPU %      Self CPU   CPU total %")));
        QVERIFY(lines[1].trimmed().endsWith(QLatin1String("# of Calls")));
        // Sorted by CUDA total; the GPU-side fp16_step first, as in torch's table.
        QVERIFY(lines[3].trimmed().startsWith(QLatin1String("fp16_step")));
        QVERIFY(lines[3].contains(QLatin1String("118.62%")));
        QVERIFY(text.contains(QLatin1String("Self CPU time total: 12.565ms\n")));
        QVERIFY(text.contains(QLatin1String("Self CUDA time total: 1.047ms\n")));
        // mlp_ops has no ProfilerStep: its 4 Optimizer.step#SGD.step iterations are the steps.
        QVERIFY(text.contains(QLatin1String("Steps: 4 from Optimizer.step\n")));
        QCOMPARE(lines.size(), 81 + 3 + 1 + 3 + 1); // rules, header, rows, footer, final newline
    }

    void jsonSortedAndCut()
    {
        QByteArray out;
        QCOMPARE(run({QStringLiteral("--json"), QStringLiteral("--sort"), QStringLiteral("self_cpu"),
                      QStringLiteral("--top"), QStringLiteral("3"), mlpOps()},
                     &out),
                 0);
        const auto rows = nlohmann::json::parse(out.toStdString());
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
        QByteArray out;
        QCOMPARE(run({QStringLiteral("--json"), baseline()}, &out), 0);
        const auto rows = nlohmann::json::parse(out.toStdString());
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
        QCOMPARE(run({QStringLiteral("--json"), QStringLiteral("--peak-tflops"), QStringLiteral("fp32=50"), baseline()},
                     &out),
                 0);
        const auto custom = rowNamed(nlohmann::json::parse(out.toStdString()), "aten::mm");
        QVERIFY(std::abs(custom["peak_fraction"].get<double>() - tflops / 50.0) < 1e-3);
        // Per shape: the rows of one name add up to its whole.
        QCOMPARE(run({QStringLiteral("--json"), QStringLiteral("--group-by-shape"), baseline()}, &out), 0);
        std::int64_t byShape = 0;
        for (const auto& r : nlohmann::json::parse(out.toStdString())) {
            if (r["name"] == "aten::mm")
                byShape += r["flops"].get<std::int64_t>();
        }
        QCOMPARE(byShape, mm["flops"].get<std::int64_t>());
        QCOMPARE(run({QStringLiteral("--roofline"), baseline()}, &out), 0);
        QVERIFY(out.contains("Peaks: NVIDIA H200"));
        QVERIFY(out.contains("TFLOP/s"));
    }

    void absurdDimsGetNoNumberAndAWarning()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("absurd.json"));
        std::ofstream(path.toStdString()) << R"({"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 5,
 "args": {"External id": 1, "Input type": ["float", "float"], "Input Dims": [[-4, 8], [8, 8]]}},
{"ph": "X", "cat": "cpu_op", "name": "aten::bmm", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
 "args": {"External id": 2, "Input type": ["float", "float"],
          "Input Dims": [[4294967296, 4294967296, 8], [4294967296, 8, 4294967296]]}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
 "args": {"External id": 3, "Input type": ["float", "float"], "Input Dims": [[4, 8], [8, 2]]}}
]})";
        QByteArray out, err;
        QCOMPARE(run({QStringLiteral("--json"), path}, &out, &err), 0);
        QVERIFY2(err.contains("warning: 2 ops have absurd shapes"), err.constData());
        const auto rows = nlohmann::json::parse(out.toStdString());
        QVERIFY(rowNamed(rows, "aten::mm")["flops"].is_null()); // one of its two calls is unknown
        QVERIFY(rowNamed(rows, "aten::bmm")["flops"].is_null());
        QVERIFY(!rowNamed(rows, "aten::mm")["unknown_reason"].get<std::string>().empty());
    }

    void rejectsBadOptions()
    {
        QCOMPARE(run({QStringLiteral("--peak-tflops"), QStringLiteral("fp99=3"), mlpOps()}), 2);
        QCOMPARE(run({QStringLiteral("--peak-tbps"), QStringLiteral("-1"), mlpOps()}), 2);
        QCOMPARE(run({QStringLiteral("--sort"), QStringLiteral("bogus"), mlpOps()}), 2);
        QCOMPARE(run({QStringLiteral("--top"), QStringLiteral("x"), mlpOps()}), 2);
        QCOMPARE(run({}), 2);
        QCOMPARE(run({QStringLiteral("/nonexistent.json")}), 1);
    }
};

QTEST_GUILESS_MAIN(TestOpsCommand)
#include "tst_opscommand.moc"
