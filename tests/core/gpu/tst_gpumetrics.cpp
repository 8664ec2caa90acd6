// GPU Utilization, Est. SM Efficiency, Est. Achieved Occupancy, the plugin's windows and its
// counter series on every fixture, against the TensorBoard plugin's own numbers
// (tests/data/reference/plugin_gpu_metrics.json, docs/gpu-metrics.md §9).
#include "core/gpu/gpumetrics.h"
#include "core/model/tracebuilder.h"
#include "fixtureloader.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace ks;
using namespace ks::gpu;
using ks::testing::fixtureTrace;
using ks::testing::nsToUs;
using ks::testing::pluginReference;

namespace {
constexpr double kPercentTolerance = 0.1; // percentage points, the target
constexpr double kTimeToleranceUs = 0.002; // float64 µs at 4.4e12 vs exact ns
} // namespace

class TestGpuMetrics : public QObject {
    Q_OBJECT
private slots:
    void pluginNumbers_data();
    void pluginNumbers();
    void stepWindowsWithGpuCopies_data();
    void stepWindowsWithGpuCopies();
    void counterSeries_data();
    void counterSeries();
    void gpuStepCopiesChangeNoMetric_data();
    void gpuStepCopiesChangeNoMetric();
    void rangeMetricsMatchBruteForce();
    void bucketsSumToRange();
    void displayFormatting();
    void absurdKernelValuesSaturate();
    void bucketWidthForAbsurdSpans();
};

static void addFixtureRows()
{
    QTest::addColumn<std::string>("fixture");
    for (const char* name : {"square", "multistream", "transformer", "big", "mlp_ops", "compiled", "cudagraphs"})
        QTest::newRow(name) << std::string(name);
}

// Every fixture: those with the plugin's numbers from the shared reference, and the ones
// recorded here (ranks, a DataLoader, a straggler, torch.compile) with the plugin's numbers
// computed by its own code (tests/gpu/plugin_gpu_metrics.py).
void TestGpuMetrics::pluginNumbers_data()
{
    QTest::addColumn<std::string>("fixture");
    for (const char* name : {"square", "multistream", "transformer", "big", "mlp_ops", "compiled", "cudagraphs",
                             "train_baseline", "train_optimized", "ddp_rank0", "ddp_rank1", "launchbound", "slowloader",
                             "straggler_rank0", "straggler_rank1", "cnn_amp", "lstm"})
        QTest::newRow(name) << std::string(name);
}

void TestGpuMetrics::pluginNumbers()
{
    QFETCH(std::string, fixture);
    const auto trace = fixtureTrace(fixture);
    QVERIFY(trace);
    const auto& ref = pluginReference()["traces"][fixture];
    const GpuAnalysis a = analyzeGpus(*trace, facts::GpuStepAnnotations::AsSteps);

    const auto& w = ref["window_us"];
    QVERIFY(std::abs(nsToUs(a.windows.globalStart) - w["global_start"].get<double>()) < kTimeToleranceUs);
    QVERIFY(std::abs(nsToUs(a.windows.globalEnd) - w["global_end"].get<double>()) < kTimeToleranceUs);
    QVERIFY(std::abs(nsToUs(a.windows.stepsStart) - w["steps_start"].get<double>()) < kTimeToleranceUs);
    QVERIFY(std::abs(nsToUs(a.windows.stepsEnd) - w["steps_end"].get<double>()) < kTimeToleranceUs);

    QCOMPARE(a.summaries.size(), ref["gpus"].size());
    const auto& [deviceKey, g] = *ref["gpus"].items().begin(); // one GPU per fixture
    const GpuSummaryMetrics& s = a.summaries.at(0);
    QCOMPARE(s.device, std::stoi(deviceKey));
    QVERIFY2(std::abs(100.0 * s.steps.utilization - g["gpu_utilization_pct"].get<double>()) < kPercentTolerance,
             std::to_string(100.0 * s.steps.utilization).c_str());
    QVERIFY(s.steps.smEfficiency);
    QVERIFY2(std::abs(100.0 * *s.steps.smEfficiency - g["est_sm_efficiency_pct"].get<double>()) < kPercentTolerance,
             std::to_string(100.0 * *s.steps.smEfficiency).c_str());
    QVERIFY(s.steps.achievedOccupancy);
    QVERIFY2(std::abs(*s.steps.achievedOccupancy - g["est_achieved_occupancy_pct"].get<double>()) < kPercentTolerance,
             std::to_string(*s.steps.achievedOccupancy).c_str());

    if (g.contains("display")) {
        const auto& display = g["display"];
        QCOMPARE(formatPluginPercent(100.0 * s.steps.utilization), display["GPU Utilization"].get<std::string>());
        QCOMPARE(formatPluginPercent(100.0 * *s.steps.smEfficiency), display["Est. SM Efficiency"].get<std::string>());
        QCOMPARE(formatPluginPercent(*s.steps.achievedOccupancy),
                 display["Est. Achieved Occupancy"].get<std::string>());
        const DeviceProperties* d = trace->deviceFor(s.device);
        QVERIFY(d);
        QCOMPARE(d->name, display["Name"].get<std::string>());
        QCOMPARE(formatDeviceMemory(d->totalGlobalMem), display["Memory"].get<std::string>());
    }
}

void TestGpuMetrics::stepWindowsWithGpuCopies_data()
{
    QTest::addColumn<std::string>("fixture");
    for (const char* name : {"square", "multistream", "transformer", "big", "compiled", "cudagraphs"})
        QTest::newRow(name) << std::string(name);
}

// The plugin's step list, GPU-side ProfilerStep copies included (docs/gpu-metrics.md §2).
void TestGpuMetrics::stepWindowsWithGpuCopies()
{
    QFETCH(std::string, fixture);
    const auto trace = fixtureTrace(fixture);
    QVERIFY(trace);
    const auto& steps = pluginReference()["traces"][fixture]["steps_us"];
    const auto kinds = facts::classifySlices(*trace);
    const facts::PluginWindows w = facts::computePluginWindows(*trace, kinds, facts::GpuStepAnnotations::AsSteps);
    QCOMPARE(w.steps.size(), steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i) {
        QVERIFY(std::abs(nsToUs(w.steps[i].start) - steps[i][0].get<double>()) < kTimeToleranceUs);
        QVERIFY(std::abs(nsToUs(w.steps[i].end) - steps[i][1].get<double>()) < kTimeToleranceUs);
    }
}

void TestGpuMetrics::counterSeries_data()
{
    QTest::addColumn<std::string>("fixture");
    QTest::addColumn<int>("smSegments"); // docs/gpu-metrics.md §9
    QTest::newRow("square") << std::string("square") << 3;
    QTest::newRow("multistream") << std::string("multistream") << 31;
    QTest::newRow("transformer") << std::string("transformer") << 213;
    QTest::newRow("big") << std::string("big") << 4692;
    QTest::newRow("compiled") << std::string("compiled") << 246;
    QTest::newRow("cudagraphs") << std::string("cudagraphs") << 420;
    QTest::newRow("train_baseline") << std::string("train_baseline") << 924;
    QTest::newRow("ddp_rank1") << std::string("ddp_rank1") << 579;
    QTest::newRow("slowloader") << std::string("slowloader") << 48;
    QTest::newRow("straggler_rank1") << std::string("straggler_rank1") << 100;
}

void TestGpuMetrics::counterSeries()
{
    QFETCH(std::string, fixture);
    QFETCH(int, smSegments);
    const auto trace = fixtureTrace(fixture);
    QVERIFY(trace);
    const auto& ref = pluginReference()["traces"][fixture]["counter_series"];
    const GpuAnalysis a = analyzeGpus(*trace);
    const GpuSummaryMetrics& s = a.summaries.at(0);
    QCOMPARE(double(s.counters.bucketWidth) / 1000.0, ref["bucket_width_us"].get<double>());
    QCOMPARE(s.counters.size(), ref["bucket_count"].get<std::size_t>());
    QCOMPARE(s.smSegments, std::size_t(smSegments));

    // Reference: (bucket start, value) per bucket, then (G1, 0).
    const auto& values = ref["gpu_utilization"][std::to_string(s.device)];
    QCOMPARE(values.size(), s.counters.size() + 1);
    for (std::size_t i = 0; i < s.counters.size(); ++i) {
        QVERIFY(std::abs(nsToUs(s.counters.bucketStart[i]) - values[i][0].get<double>()) < kTimeToleranceUs);
        QVERIFY2(std::abs(100.0 * (s.counters.utilization[i] - values[i][1].get<double>())) < kPercentTolerance,
                 ("bucket " + std::to_string(i) + ": " + std::to_string(s.counters.utilization[i]) + " vs "
                  + std::to_string(values[i][1].get<double>()))
                     .c_str());
    }
    QVERIFY(std::abs(nsToUs(s.counters.bucketStart.back()) - values.back()[0].get<double>()) < kTimeToleranceUs);
}

void TestGpuMetrics::gpuStepCopiesChangeNoMetric_data() { addFixtureRows(); }

// Dropping the GPU-side step copies (our default) leaves [S, E] and the metrics as they
// are (docs/gpu-metrics.md §9: "Removing the GPU-side ProfilerStep copies changes none").
void TestGpuMetrics::gpuStepCopiesChangeNoMetric()
{
    QFETCH(std::string, fixture);
    const auto trace = fixtureTrace(fixture);
    const GpuAnalysis plugin = analyzeGpus(*trace, facts::GpuStepAnnotations::AsSteps);
    const GpuAnalysis ours = analyzeGpus(*trace, facts::GpuStepAnnotations::Ignore);
    if (!plugin.windows.hasProfilerSteps && ours.windows.source != facts::StepSource::None) {
        // Without ProfilerStep the plugin has one step; Kinetoscope finds the loop's (issue 35):
        // multistream's iter0..iter3 labels, mlp_ops' Optimizer.step ranges.
        QCOMPARE(ours.windows.sourceName, std::string(fixture == "multistream" ? "labels:iter<N>" : "Optimizer.step"));
        QCOMPARE(ours.windows.steps.size(), std::size_t(4));
        QVERIFY(ours.windows.stepsStart >= plugin.windows.globalStart);
        return;
    }
    QCOMPARE(ours.windows.stepsStart, plugin.windows.stepsStart);
    QCOMPARE(ours.windows.stepsEnd, plugin.windows.stepsEnd);
    QCOMPARE(ours.summaries.at(0).steps.utilization, plugin.summaries.at(0).steps.utilization);
    for (const auto& step : ours.windows.steps)
        QVERIFY(!step.gpuSideCopy);
}

// Any range: the step-function integrals against a direct sweep over the kernels.
void TestGpuMetrics::rangeMetricsMatchBruteForce()
{
    const auto trace = fixtureTrace("transformer");
    const auto kinds = facts::classifySlices(*trace);
    const GpuMetricIndex index(*trace, kinds, 0);
    const auto& slices = trace->slices();
    const TimeNs t0 = trace->startTime();
    const TimeNs span = trace->endTime() - t0;
    for (int k = 0; k < 20; ++k) {
        const TimeNs a = t0 + span * k / 23, b = a + span / (3 + k);
        // Brute force: clip each kernel, sum occupancy weights, sweep the union.
        std::vector<std::pair<TimeNs, TimeNs>> clipped;
        double occWeighted = 0, occWeight = 0;
        for (SliceId s = 0; s < slices.size(); ++s) {
            if (kinds[s] != facts::PluginKind::Kernel || trace->gpuOpInfo(s)->device != 0)
                continue;
            const TimeNs lo = std::max(a, slices.start[s]), hi = std::min(b, slices.end(s));
            if (hi <= lo)
                continue;
            clipped.emplace_back(lo, hi);
            const double occ = trace->gpuOpInfo(s)->estAchievedOccupancyPct;
            if (occ >= 0) {
                occWeighted += occ * double(hi - lo);
                occWeight += double(hi - lo);
            }
        }
        std::sort(clipped.begin(), clipped.end());
        TimeNs busy = 0, curLo = 0, curHi = std::numeric_limits<TimeNs>::min();
        for (const auto& [lo, hi] : clipped) {
            if (lo > curHi) {
                if (curHi > curLo)
                    busy += curHi - curLo;
                curLo = lo;
                curHi = hi;
            } else {
                curHi = std::max(curHi, hi);
            }
        }
        if (curHi > curLo)
            busy += curHi - curLo;
        const RangeMetrics m = index.metrics(a, b);
        QVERIFY(std::abs(m.utilization - double(busy) / double(b - a)) < 1e-9);
        QCOMPARE(bool(m.achievedOccupancy), occWeight > 0);
        if (occWeight > 0)
            QVERIFY(std::abs(*m.achievedOccupancy - occWeighted / occWeight) < 1e-6);
    }
}

// Buckets at any width integrate back to the whole range's numbers.
void TestGpuMetrics::bucketsSumToRange()
{
    const auto trace = fixtureTrace("big");
    const GpuAnalysis a = analyzeGpus(*trace);
    const GpuMetricIndex& index = a.gpus.at(0);
    const TimeNs start = a.windows.stepsStart, end = a.windows.stepsEnd;
    const MetricSeries series = index.series(start, end, 1000);
    QCOMPARE(series.size(), std::size_t(1000));
    double busy = 0, sm = 0;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const double width = double(series.bucketStart[i + 1] - series.bucketStart[i]);
        busy += series.utilization[i] * width;
        if (!std::isnan(series.smEfficiency[i]))
            sm += series.smEfficiency[i] * width;
    }
    const RangeMetrics whole = index.metrics(start, end);
    QVERIFY(std::abs(busy / double(end - start) - whole.utilization) < 1e-9);
    QVERIFY(std::abs(sm / double(end - start) - *whole.smEfficiency) < 1e-9);
}

void TestGpuMetrics::displayFormatting()
{
    QCOMPARE(formatPluginPercent(4.897412), std::string("4.9 %"));
    QCOMPARE(formatPluginPercent(100.0), std::string("100.0 %"));
    QCOMPARE(formatPluginPercent(22.535136), std::string("22.54 %"));
    QCOMPARE(formatDeviceMemory(150109880320), std::string("139.8 GB"));
}

// Blocks per SM and occupancy far beyond int64 once scaled (a crafted trace) saturate
// instead of wrapping around.
void TestGpuMetrics::absurdKernelValuesSaturate()
{
    TraceBuilder builder;
    GpuOpInfo info;
    info.device = 0;
    info.stream = 7;
    info.blocksPerSm = 1e30f;
    info.estAchievedOccupancyPct = 1e30f;
    for (const TimeNs start : {TimeNs(1000), TimeNs(1500)}) {
        SliceEvent kernel;
        kernel.pid = JsonId::fromNumber(0);
        kernel.tid = JsonId::fromNumber(7);
        kernel.device = true;
        kernel.start = start;
        kernel.duration = 1000;
        kernel.name = builder.strings().intern("k");
        kernel.category = builder.strings().intern("kernel");
        kernel.gpuOp = &info;
        builder.addSlice(kernel);
    }
    const Trace trace = builder.finish();
    const GpuMetricIndex index(trace, facts::classifySlices(trace), 0);
    QCOMPARE(index.counts().withBlocksPerSm, std::uint64_t(2));
    const RangeMetrics m = index.metrics(1000, 2500);
    QCOMPARE(m.utilization, 1.0);
    QVERIFY(m.smEfficiency);
    QCOMPARE(*m.smEfficiency, 1.0);
    QVERIFY(m.achievedOccupancy);
    QCOMPARE(*m.achievedOccupancy, 100.0);
}

void TestGpuMetrics::bucketWidthForAbsurdSpans()
{
    // The threshold itself is unchanged: buckets widen once the span exceeds 100 of them.
    QCOMPARE(pluginCounterBuckets(0, 100000).width, TimeNs(1000));
    QCOMPARE(pluginCounterBuckets(0, 100000).count, std::size_t(100));
    QCOMPARE(pluginCounterBuckets(0, 100050).width, TimeNs(10000));
    QCOMPARE(pluginCounterBuckets(0, 100050).count, std::size_t(10));
    // 100 · width overflowed int64 before the loop could stop.
    const TimeNs max = std::numeric_limits<TimeNs>::max();
    const PluginCounterBuckets widest = pluginCounterBuckets(0, max);
    QCOMPARE(widest.width, TimeNs(100000000000000000));
    QCOMPARE(widest.count, std::size_t(92));
    QCOMPARE(widest.boundaries.back(), max);
    // A span that does not fit int64 at all has no buckets.
    QCOMPARE(pluginCounterBuckets(std::numeric_limits<TimeNs>::min(), max).count, std::size_t(0));
    QCOMPARE(pluginCounterBuckets(5, 5).count, std::size_t(0));
}

QTEST_GUILESS_MAIN(TestGpuMetrics)
#include "tst_gpumetrics.moc"
