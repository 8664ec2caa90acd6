// The GPU overlays and summary panel on a real trace: a track rendered over a known window
// shows the analysis' values, stays aligned with the kernels at every zoom, and the panel's
// models, chart and step activation carry the core numbers.
#include "fixtureloader.h"
#include "widgets/gpumetrictrack.h"
#include "widgets/gpuoverlaypanel.h"
#include "widgets/gpustepbreakdownmodel.h"
#include "widgets/gpustepchart.h"
#include "widgets/gpusummarymodel.h"
#include "widgets/gpusummarypanel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

#include <cmath>

using namespace ks;
using ks::testing::fixtureTrace;

namespace {

std::shared_ptr<const gpu::GpuReport> transformerReport()
{
    static const auto report = gpu::makeGpuReport(fixtureTrace("transformer"));
    return report;
}

// A kernel of GPU 0 at least `minDuration` long: the overlay must show it busy.
SliceId longKernel(const Trace& trace, TimeNs minDuration)
{
    for (SliceId s = 0; s < trace.slices().size(); ++s) {
        const GpuOpInfo* op = trace.gpuOpInfo(s);
        if (op && op->device == 0 && trace.str(trace.slices().category[s]) == "kernel"
            && trace.slices().duration[s] >= minDuration)
            return s;
    }
    return kNoSlice;
}

} // namespace

class TestGpuOverlay : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void trackShowsAnalysisValues_data();
    void trackShowsAnalysisValues();
    void renderedLineFollowsValues();
    void panelTogglesOverlays();
    void summaryModel();
    void breakdownModelAndChart();
};

void TestGpuOverlay::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // QSettings of the overlay toggles
    QVERIFY(transformerReport());
    QCOMPARE(transformerReport()->analysis.gpus.size(), std::size_t(1));
}

void TestGpuOverlay::trackShowsAnalysisValues_data()
{
    QTest::addColumn<double>("zoom"); // visible range = this fraction of the steps window
    QTest::newRow("whole steps window") << 1.0;
    QTest::newRow("1/20") << 0.05;
    QTest::newRow("1/1000") << 0.001;
}

void TestGpuOverlay::trackShowsAnalysisValues()
{
    QFETCH(double, zoom);
    const auto report = transformerReport();
    const auto& index = report->analysis.gpus.front();
    const Trace& trace = *report->trace;
    const SliceId kernel = longKernel(trace, 20000);
    QVERIFY(kernel != kNoSlice);
    const TimeNs kStart = trace.slices().start[kernel], kEnd = trace.slices().end(kernel);

    // A window centred on the kernel, `zoom` times the steps window wide.
    const TimeNs width = std::max<TimeNs>(TimeNs(double(report->analysis.windows.stepsSpan()) * zoom), 3000);
    const TimeNs start = (kStart + kEnd) / 2 - width / 2, end = start + width;

    GpuMetricTrack track(GpuMetric::Utilization);
    constexpr int kLeft = 120, kRight = 8, kPlotWidth = 600;
    track.setTimeAreaMargins(kLeft, kRight);
    track.resize(kLeft + kPlotWidth + kRight, track.height());
    track.setReport(report, 0);
    track.setVisibleRange(start, end);
    track.show(); // QCustomPlot lays out its axis rect from the shown widget's size
    QVERIFY(QTest::qWaitForWindowExposed(&track));
    track.replot();

    // One bucket per kPixelsPerBucket pixels of the plotted area.
    const auto& series = track.series();
    QCOMPARE(series.size(), std::size_t(kPlotWidth / GpuMetricTrack::kPixelsPerBucket));
    QCOMPARE(series.bucketStart.front(), start);
    QCOMPARE(series.bucketStart.back(), end);
    // Every bucket's value is the analysis' metric for exactly that bucket's range.
    for (std::size_t i = 0; i < series.size(); i += 7) {
        const TimeNs a = series.bucketStart[i], b = series.bucketStart[i + 1];
        QCOMPARE(track.valueAt(a), 100.0 * index.metrics(a, b).utilization);
    }
    // Inside the kernel the GPU is busy; the track's x axis maps times exactly as the
    // timeline does (left margin + (t − start) · width / range), so the step is aligned.
    QCOMPARE(track.valueAt((kStart + kEnd) / 2) > 0.0, true);
    if (kEnd - kStart > 2 * series.bucketWidth)
        QCOMPARE(track.valueAt((kStart + kEnd) / 2), 100.0);
    const double expectedX = kLeft + double(kStart - start) * kPlotWidth / double(end - start);
    const double x = track.xAxis->coordToPixel(double(kStart - trace.startTime()));
    QVERIFY2(std::abs(x - expectedX) < 0.5, qPrintable(QStringLiteral("%1 vs %2").arg(x).arg(expectedX)));
}

void TestGpuOverlay::renderedLineFollowsValues()
{
    const auto report = transformerReport();
    const Trace& trace = *report->trace;
    const SliceId kernel = longKernel(trace, 20000);
    const TimeNs kStart = trace.slices().start[kernel];
    GpuMetricTrack track(GpuMetric::Utilization);
    track.resize(300, track.height());
    track.setReport(report, 0);
    // The left half of the window is before any kernel of this step, the right half the kernel.
    track.setVisibleRange(kStart - 10000, kStart + 10000);
    track.show();
    QVERIFY(QTest::qWaitForWindowExposed(&track));
    track.replot();
    const QImage image = track.toPixmap().toImage();
    const QColor pen = track.graph(0)->pen().color();
    const int busyX = int(track.xAxis->coordToPixel(double(kStart + 5000 - trace.startTime())));
    const int busyY = int(std::lround(track.yAxis->coordToPixel(track.valueAt(kStart + 5000))));
    bool found = false;
    for (int dy = -1; dy <= 1 && !found; ++dy)
        found = image.pixelColor(busyX, busyY + dy) == pen;
    QVERIFY2(found, "the step line is drawn at the busy value inside the kernel");
    // Before the kernel (and after the previous one) the line sits at 0 %.
    const int idleX = int(track.xAxis->coordToPixel(double(kStart - 500 - trace.startTime())));
    const double idle = track.valueAt(kStart - 500);
    const int idleY = int(std::lround(track.yAxis->coordToPixel(idle)));
    QVERIFY(idle < 100.0);
    found = false;
    for (int dy = -1; dy <= 1 && !found; ++dy)
        found = image.pixelColor(idleX, idleY + dy) == pen;
    QVERIFY2(found, "the step line is drawn at the bucket's value before the kernel");
}

void TestGpuOverlay::panelTogglesOverlays()
{
    GpuOverlayPanel panel;
    panel.setReport(transformerReport());
    QCOMPARE(panel.tracks().size(), std::size_t(3));
    const auto& w = transformerReport()->analysis.windows;
    panel.setVisibleRange(w.stepsStart, w.stepsEnd);
    panel.setMetricShown(GpuMetric::SmEfficiency, false);
    for (auto* track : panel.tracks())
        QCOMPARE(track->isHidden(), track->metric() == GpuMetric::SmEfficiency);
    panel.setMetricShown(GpuMetric::SmEfficiency, true);
    for (auto* track : panel.tracks()) {
        QVERIFY(!track->isHidden());
        QCOMPARE(track->series().bucketStart.front(), w.stepsStart);
    }
}

void TestGpuOverlay::summaryModel()
{
    GpuSummaryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setReport(transformerReport());
    QCOMPARE(model.rowCount(), 1);
    // TensorBoard's GPU summary for transformer (plugin_gpu_metrics.json display).
    QCOMPARE(model.index(0, GpuSummaryModel::Name).data().toString(), QStringLiteral("NVIDIA H200"));
    QCOMPARE(model.index(0, GpuSummaryModel::Memory).data().toString(), QStringLiteral("139.8 GB"));
    QCOMPARE(model.index(0, GpuSummaryModel::ComputeCapability).data().toString(), QStringLiteral("9.0"));
    QCOMPARE(model.index(0, GpuSummaryModel::Utilization).data().toString(), QStringLiteral("22.54 %"));
    QCOMPARE(model.index(0, GpuSummaryModel::SmEfficiency).data().toString(), QStringLiteral("20.55 %"));
    QCOMPARE(model.index(0, GpuSummaryModel::Occupancy).data().toString(), QStringLiteral("22.78 %"));

    // A visible range: the range columns follow it.
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    const auto& first = transformerReport()->breakdown.steps.front();
    model.setRange(first.start, first.end);
    QCOMPARE(changed.count(), 1);
    const double expected = 100.0 * transformerReport()->analysis.gpus[0].metrics(first.start, first.end).utilization;
    QCOMPARE(model.index(0, GpuSummaryModel::RangeUtilization).data(Qt::UserRole).toDouble(), expected);
}

void TestGpuOverlay::breakdownModelAndChart()
{
    GpuSummaryPanel panel;
    QAbstractItemModelTester tester(panel.breakdownModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto report = transformerReport();
    panel.setReport(report);
    auto* model = panel.breakdownModel();
    QCOMPARE(model->rowCount(), 4); // 3 steps (no GPU-side copies) + the average
    QCOMPARE(model->index(3, GpuStepBreakdownModel::Step).data().toString(), QStringLiteral("Average"));
    // docs/gpu-metrics.md §9, transformer "1×": Kernel 1295 µs (22.63 %).
    const int kernelColumn = GpuStepBreakdownModel::FirstRole + int(gpu::StepRole::Kernel);
    QVERIFY(std::abs(model->index(3, kernelColumn).data(Qt::UserRole).toDouble() / 1000.0 - 1295.0) <= 1.0);
    QVERIFY(model->index(3, kernelColumn).data().toString().endsWith(QStringLiteral("(22.63 %)")));

    // The chart stacks the same numbers, in ms.
    GpuStepChart* chart = panel.chart();
    QCOMPARE(chart->barValue(3, gpu::StepRole::Kernel), report->breakdown.average.parts[0] / 1e6);

    // Clicking a step's bar (or activating its row) asks the timeline to zoom to it.
    QSignalSpy zoom(&panel, &GpuSummaryPanel::stepActivated);
    panel.resize(800, 700);
    panel.tabs()->setCurrentIndex(1); // Step Time Breakdown
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    chart->replot();
    const QPoint bar(int(chart->xAxis->coordToPixel(1.0)),
                     int(chart->yAxis->coordToPixel(chart->barValue(1, gpu::StepRole::Kernel) / 2)));
    QTest::mouseClick(chart, Qt::LeftButton, {}, bar);
    QCOMPARE(zoom.count(), 1);
    QCOMPARE(zoom.at(0).at(0).value<TimeNs>(), report->breakdown.steps[1].start);
    QCOMPARE(zoom.at(0).at(1).value<TimeNs>(), report->breakdown.steps[1].end);
    panel.activateStep(0);
    QCOMPARE(zoom.count(), 2);
    QCOMPARE(zoom.at(1).at(0).value<TimeNs>(), report->breakdown.steps[0].start);

    // The legend sits beside the bars, never over them.
    QVERIFY(!chart->axisRect()->outerRect().intersects(chart->legend->outerRect()));
}

QTEST_MAIN(TestGpuOverlay)
#include "tst_gpuoverlay.moc"
