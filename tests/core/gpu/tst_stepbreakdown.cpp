// The Overview's step-time breakdown against the plugin's numbers (docs/gpu-metrics.md §9,
// "Average Step Time and parts"): with GPU-side ProfilerStep copies counted as steps, as
// the plugin did, and without them (our default, the plugin's "1×" rows).
#include "core/gpu/stepbreakdown.h"
#include "fixtureloader.h"

#include <QTest>

#include <cmath>

using namespace ks;
using namespace ks::gpu;
using ks::testing::fixtureTrace;

Q_DECLARE_METATYPE(std::vector<double>)

class TestStepBreakdown : public QObject {
    Q_OBJECT
private slots:
    void average_data();
    void average();
    void perStepPartsAddUp();
    void claimsInPriorityOrder();
    void nestedSlicesCountOncePerRole();
};

void TestStepBreakdown::average_data()
{
    QTest::addColumn<std::string>("fixture");
    QTest::addColumn<bool>("pluginSteps");
    QTest::addColumn<int>("steps");
    QTest::addColumn<double>("avgStepUs");
    // Kernel, Memcpy, Memset, Communication, Runtime, DataLoader, CPU Exec, Other: µs as
    // the plugin displays them (rounded), then percentages.
    QTest::addColumn<std::vector<double>>("partsUs");
    QTest::addColumn<std::vector<double>>("partsPct");
    QTest::newRow("square") << std::string("square") << true << 1 << 3798.0
                            << std::vector<double>{568, 0, 0, 0, 84, 0, 3146, 0}
                            << std::vector<double>{14.94, 0, 0, 0, 2.22, 0, 82.83, 0};
    QTest::newRow("multistream") << std::string("multistream") << true << 1 << 58974.0
                                 << std::vector<double>{21698, 34271, 0, 0, 1409, 0, 1545, 51}
                                 << std::vector<double>{36.79, 58.11, 0, 0, 2.39, 0, 2.62, 0.09};
    QTest::newRow("transformer plugin") << std::string("transformer") << true << 5 << 3434.0
                                        << std::vector<double>{777, 211, 2, 0, 315, 0, 1562, 566}
                                        << std::vector<double>{22.63, 6.15, 0.07, 0, 9.18, 0, 45.48, 16.48};
    QTest::newRow("transformer 1x") << std::string("transformer") << false << 3 << 5723.0
                                    << std::vector<double>{1295, 352, 4, 0, 526, 0, 2603, 943}
                                    << std::vector<double>{22.63, 6.15, 0.07, 0, 9.18, 0, 45.48, 16.48};
    QTest::newRow("big plugin") << std::string("big") << true << 23 << 12157.0
                                << std::vector<double>{7525, 35, 12, 0, 505, 0, 3454, 628}
                                << std::vector<double>{61.9, 0.29, 0.1, 0, 4.15, 0, 28.41, 5.16};
    QTest::newRow("big 1x") << std::string("big") << false << 12 << 23301.0
                            << std::vector<double>{14422, 67, 22, 0, 967, 0, 6619, 1203}
                            << std::vector<double>{61.9, 0.29, 0.1, 0, 4.15, 0, 28.41, 5.16};
    // torch.compile'd steps: Triton kernels launched through cuLaunchKernel, and the same steps
    // replayed as CUDA graphs (the plugin's numbers from tests/gpu/plugin_gpu_metrics.py).
    QTest::newRow("compiled plugin") << std::string("compiled") << true << 5 << 4208.0
                                     << std::vector<double>{1636, 0, 2, 0, 131, 0, 2339, 100}
                                     << std::vector<double>{38.88, 0, 0.04, 0, 3.12, 0, 55.59, 2.37};
    QTest::newRow("compiled 1x") << std::string("compiled") << false << 3 << 7013.0
                                 << std::vector<double>{2726, 0, 3, 0, 218, 0, 3898, 166}
                                 << std::vector<double>{38.88, 0, 0.04, 0, 3.12, 0, 55.59, 2.37};
    QTest::newRow("cudagraphs plugin") << std::string("cudagraphs") << true << 5 << 2398.0
                                       << std::vector<double>{1687, 0, 2, 0, 200, 0, 460, 49}
                                       << std::vector<double>{70.37, 0, 0.09, 0, 8.33, 0, 19.17, 2.05};
    QTest::newRow("cudagraphs 1x") << std::string("cudagraphs") << false << 3 << 3997.0
                                   << std::vector<double>{2812, 0, 3, 0, 333, 0, 766, 82}
                                   << std::vector<double>{70.37, 0, 0.09, 0, 8.33, 0, 19.17, 2.05};
    // NCCL kernels (Communication), a slow DataLoader, a rank sleeping between steps (Other).
    QTest::newRow("ddp_rank0 plugin") << std::string("ddp_rank0") << true << 5 << 6602.0
                                      << std::vector<double>{2252, 39, 4, 68, 613, 0, 3087, 540}
                                      << std::vector<double>{34.12, 0.59, 0.06, 1.03, 9.28, 0, 46.75, 8.17};
    QTest::newRow("slowloader plugin") << std::string("slowloader") << true << 5 << 17716.0
                                       << std::vector<double>{33, 2, 0, 0, 236, 16055, 927, 462}
                                       << std::vector<double>{0.19, 0.01, 0, 0, 1.33, 90.63, 5.23, 2.61};
    QTest::newRow("straggler_rank1 plugin") << std::string("straggler_rank1") << true << 7 << 13960.0
                                            << std::vector<double>{218, 13, 0, 77, 275, 0, 1422, 11953}
                                            << std::vector<double>{1.56, 0.09, 0, 0.55, 1.97, 0, 10.19, 85.63};
}

void TestStepBreakdown::average()
{
    QFETCH(std::string, fixture);
    QFETCH(bool, pluginSteps);
    QFETCH(int, steps);
    QFETCH(double, avgStepUs);
    QFETCH(std::vector<double>, partsUs);
    QFETCH(std::vector<double>, partsPct);
    const auto trace = fixtureTrace(fixture);
    QVERIFY(trace);
    const auto kinds = facts::classifySlices(*trace);
    const facts::PluginWindows windows = facts::computePluginWindows(
        *trace, kinds, pluginSteps ? facts::GpuStepAnnotations::AsSteps : facts::GpuStepAnnotations::Ignore);
    BreakdownOptions options;
    options.pluginFreeTimeReset = pluginSteps;
    const StepBreakdown b = computeStepBreakdown(*trace, kinds, windows, options);
    QCOMPARE(int(b.steps.size()), steps);
    QVERIFY(b.hasGpuColumns);
    QCOMPARE(b.hasCommunication, partsUs[std::size_t(StepRole::Communication)] > 0);
    // Displayed values are rounded to whole µs: allow that rounding, plus float µs vs ns.
    QVERIFY2(std::abs(b.average.total / 1000.0 - avgStepUs) <= 1.0, std::to_string(b.average.total).c_str());
    for (std::size_t r = 0; r < kStepRoleCount; ++r) {
        const std::string role = std::string(stepRoleName(StepRole(r)));
        QVERIFY2(std::abs(b.average.parts[r] / 1000.0 - partsUs[r]) <= 1.0,
                 (role + ": " + std::to_string(b.average.parts[r] / 1000.0) + " µs").c_str());
        QVERIFY2(std::abs(b.average.percent(StepRole(r)) - partsPct[r]) < 0.1,
                 (role + ": " + std::to_string(b.average.percent(StepRole(r))) + " %").c_str());
    }
}

// Every step's roles and Other partition the step exactly (no double counting).
void TestStepBreakdown::perStepPartsAddUp()
{
    const auto trace = fixtureTrace("big");
    const auto kinds = facts::classifySlices(*trace);
    const facts::PluginWindows windows = facts::computePluginWindows(*trace, kinds);
    const StepBreakdown b = computeStepBreakdown(*trace, kinds, windows);
    QCOMPARE(b.steps.size(), std::size_t(12));
    for (const auto& row : b.steps) {
        double sum = 0;
        for (double p : row.parts)
            sum += p;
        QCOMPARE(sum, row.total);
        QVERIFY(row.total > 0);
    }
    QCOMPARE(b.steps.front().name, std::string("0"));
    QCOMPARE(b.steps.back().name, std::string("11"));
}

// A tiny inline trace: a kernel under an op, a runtime call, and a gap.
void TestStepBreakdown::claimsInPriorityOrder()
{
    const std::string json = R"({"traceEvents":[
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#7","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":50},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":10,"args":{"correlation":5}},
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":40,"dur":30,"args":{"correlation":5,"device":0}}
    ]})";
    const LoadResult loaded = loadTraceFromMemory(json, "inline");
    QVERIFY(loaded.ok());
    const auto kinds = facts::classifySlices(*loaded.trace);
    const facts::PluginWindows windows = facts::computePluginWindows(*loaded.trace, kinds);
    QCOMPARE(windows.steps.size(), std::size_t(1));
    QCOMPARE(windows.steps[0].deviceEventCount, std::uint64_t(1));
    const StepBreakdown b = computeStepBreakdown(*loaded.trace, kinds, windows);
    const auto& parts = b.steps.at(0).parts;
    QCOMPARE(b.steps[0].name, std::string("7"));
    QCOMPARE(parts[std::size_t(StepRole::Kernel)], 30000.0); // 40..70
    QCOMPARE(parts[std::size_t(StepRole::Runtime)], 10000.0); // 20..30
    QCOMPARE(parts[std::size_t(StepRole::CpuExec)], 20000.0); // 10..20, 30..40
    QCOMPARE(parts[std::size_t(StepRole::Other)], 40000.0); // 0..10, 70..100
}

// Each role's time is the union of its slices. Slices inside an op of their own role add
// nothing (the breakdown skips them instead of holding an interval per op); slices inside an op
// of another role, or reaching past the op that covers them, still count.
void TestStepBreakdown::nestedSlicesCountOncePerRole()
{
    const std::string json = R"({"traceEvents":[
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"X","cat":"cpu_op","name":"aten::outer","pid":1,"tid":1,"ts":10,"dur":50},
      {"ph":"X","cat":"cpu_op","name":"aten::inner","pid":1,"tid":1,"ts":12,"dur":10},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":14,"dur":2},
      {"ph":"X","cat":"cpu_op","name":"enumerate(DataLoader)#_Iter.__next__","pid":1,"tid":1,"ts":30,"dur":20},
      {"ph":"X","cat":"cpu_op","name":"aten::deep","pid":1,"tid":1,"ts":32,"dur":5},
      {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":40,"dur":4},
      {"ph":"X","cat":"cpu_op","name":"nccl:all_reduce","pid":1,"tid":1,"ts":70,"dur":0},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":80,"dur":6},
      {"ph":"X","cat":"cpu_op","name":"aten::other","pid":1,"tid":2,"ts":55,"dur":15},
      {"ph":"X","cat":"cpu_op","name":"aten::sub","pid":1,"tid":2,"ts":56,"dur":10}
    ]})";
    const LoadResult loaded = loadTraceFromMemory(json, "inline");
    QVERIFY(loaded.ok());
    const auto kinds = facts::classifySlices(*loaded.trace);
    const StepBreakdown b =
        computeStepBreakdown(*loaded.trace, kinds, facts::computePluginWindows(*loaded.trace, kinds));
    QCOMPARE(b.steps.size(), std::size_t(1));
    const auto& parts = b.steps[0].parts;
    QCOMPARE(parts[std::size_t(StepRole::Runtime)], 12000.0); // 14..16 in an op, 40..44 in the loader, 80..86
    QCOMPARE(parts[std::size_t(StepRole::DataLoader)], 16000.0); // 30..50 less the copy
    QCOMPARE(parts[std::size_t(StepRole::CpuExec)], 38000.0); // 10..70 (two threads) less the above
    QCOMPARE(parts[std::size_t(StepRole::Other)], 34000.0); // 0..10, 70..80, 86..100
    QVERIFY(b.hasCommunication); // an empty all_reduce still shows the column
    QCOMPARE(parts[std::size_t(StepRole::Communication)], 0.0);
}

QTEST_GUILESS_MAIN(TestStepBreakdown)
#include "tst_stepbreakdown.moc"
