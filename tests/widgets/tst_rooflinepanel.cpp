// The FLOP columns of the Operators table and the Roofline dock (issue 37) on train_baseline
// (H200, fp32 GEMMs on SIMT kernels): aten::mm's row and point carry 2·M·N·K over its calls
// (computed from its dims in tests/core/analysis/tst_flopcount), the plot has the H200's five
// roofs and one point per op and shape, and clicking a point highlights its kernels.
#include "core/analysis/roofline.h"
#include "fixtureevents.h"
#include "fixtureloader.h"
#include "widgets/detailspanel.h"
#include "widgets/opstablemodel.h"
#include "widgets/peaksettings.h"
#include "widgets/rooflinepanel.h"
#include "widgets/rooflineplot.h"
#include "widgets/timelinewidget.h"

#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>

#include <set>

using namespace ks;

class TstRooflinePanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("kinetoscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_rooflinepanel"));
        QSettings().clear();
    }

    void operatorsTableHasFlopColumns()
    {
        OperatorTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto trace = testing::fixtureTrace("train_baseline");
        model.rowsJob(trace, std::nullopt)()(model); // the job and its installer, here in turn
        QCOMPARE(model.visibleColumn(OperatorTableModel::Gflops), -1); // an option, off by default
        model.setShowFlops(true);
        model.rowsJob(trace, std::nullopt)()(model);
        const int gflops = model.visibleColumn(OperatorTableModel::Gflops);
        QVERIFY(gflops > 0);
        QCOMPARE(model.headerData(model.visibleColumn(OperatorTableModel::PeakPct), Qt::Horizontal).toString(),
                 QStringLiteral("% of peak"));
        int mm = -1;
        for (int r = 0; r < model.rowCount(); ++r) {
            if (model.index(r, OperatorTableModel::Name).data().toString() == QLatin1String("aten::mm"))
                mm = r;
        }
        QVERIFY(mm >= 0);
        QCOMPARE(model.index(mm, gflops).data().toString(), QStringLiteral("309.238"));
        // TFLOP/s over the kernels of every aten::mm call (by External id in the fixture's own
        // text), % of the H200's FP32 roof (67) in the column and of its TF32 roof in the tip.
        const kstest::FixtureEvents fixture("train_baseline");
        std::set<std::int64_t> mmIds;
        double mmFlops = 0;
        for (const auto& e : fixture.slices) {
            if (e.value("cat", "") == "cpu_op" && e.value("name", "") == "aten::mm") {
                mmIds.insert(e["args"]["External id"].get<std::int64_t>());
                const auto& dims = e["args"]["Input Dims"];
                mmFlops += 2.0 * dims[0][0].get<double>() * dims[0][1].get<double>() * dims[1][1].get<double>();
            }
        }
        double kernelUs = 0;
        for (const auto& e : fixture.slices) {
            if (e.value("cat", "") == "kernel" && mmIds.count(e["args"].value("External id", std::int64_t(-1))))
                kernelUs += e["dur"].get<double>();
        }
        QCOMPARE(QString::number(mmFlops * 1e-9, 'f', 3), QStringLiteral("309.238"));
        const double tflops = mmFlops / (kernelUs * 1e-6) * 1e-12;
        QVERIFY(tflops > 30 && tflops < 67);
        QCOMPARE(model.index(mm, model.visibleColumn(OperatorTableModel::TflopsPerS)).data().toString(),
                 QString::number(tflops, 'f', 2));
        QCOMPARE(model.index(mm, model.visibleColumn(OperatorTableModel::PeakPct)).data().toString(),
                 QString::number(100.0 * tflops / 67.0, 'f', 1) + QStringLiteral(" %"));
        QVERIFY(model.index(mm, model.visibleColumn(OperatorTableModel::PeakPct))
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("%1 % of the TF32 roof").arg(100.0 * tflops / 494.5, 0, 'f', 1)));
        QCOMPARE(model.index(mm, model.visibleColumn(OperatorTableModel::Bound)).data().toString(),
                 QStringLiteral("compute"));
        QVERIFY(
            model.index(mm, gflops).data(Qt::ToolTipRole).toString().contains(QLatin1String("FP32 of NVIDIA H200")));
        // A row without a rule shows "-" and says why.
        QCOMPARE(model.index(0, gflops).data().toString(), QStringLiteral("-"));
        // A range: the costs read for the whole trace are reused, the calls are the range's.
        const TimeNs mid = (trace->startTime() + trace->endTime()) / 2;
        model.rowsJob(trace, TimeRange{trace->startTime(), mid})()(model);
        QVERIFY(model.rowCount() > 0);
    }

    void detailsShowTheCallsFlops()
    {
        const auto trace = testing::fixtureTrace("train_baseline");
        DetailsPanel details;
        details.setTrace(trace);
        for (SliceId s = 0; s < trace->slices().size(); ++s) {
            // The fixture's aten::mm of External id 539: [4096, 512] @ [512, 2048], fp32.
            if (trace->str(trace->slices().name[s]) != "aten::mm" || trace->slices().externalId[s] != 539)
                continue;
            details.showSlice(s);
            QCOMPARE(details.fieldValue(QStringLiteral("FLOPs")),
                     QStringLiteral("%1 GFLOP (matmul rule)").arg(2.0 * 4096 * 512 * 2048 * 1e-9, 0, 'f', 3));
            QCOMPARE(details.fieldValue(QStringLiteral("Bytes (min. traffic)")),
                     QStringLiteral("%1 MB").arg(4.0 * (4096 * 512 + 512 * 2048 + 4096 * 2048) * 1e-6, 0, 'f', 3));
            // Its TFLOP/s over the kernels of External id 539 in the fixture's own text, against
            // the H200's FP32 roof (67) and TF32 roof (494.5).
            const kstest::FixtureEvents fixture("train_baseline");
            double kernelUs = 0;
            int kernels = 0;
            for (const auto& e : fixture.slices) {
                if (e.value("cat", "") == "kernel" && e["args"].value("External id", std::int64_t(-1)) == 539) {
                    kernelUs += e["dur"].get<double>();
                    ++kernels;
                }
            }
            QCOMPARE(kernels, 1);
            const double tflops = 2.0 * 4096 * 512 * 2048 / (kernelUs * 1e-6) * 1e-12;
            QVERIFY(tflops > 30 && tflops < 67);
            const QString achieved = details.fieldValue(QStringLiteral("Achieved"));
            QVERIFY2(achieved.startsWith(QString::number(tflops, 'f', 2) + QStringLiteral(" TFLOP/s over ")),
                     qPrintable(achieved));
            QVERIFY2(achieved.endsWith(QStringLiteral(" of 1 kernel(s)")), qPrintable(achieved));
            QCOMPARE(details.fieldValue(QStringLiteral("% of peak")),
                     QStringLiteral("%1 % of FP32 peak (67 TFLOP/s of NVIDIA H200); %2 % of TF32 peak")
                         .arg(100.0 * tflops / 67.0, 0, 'f', 1)
                         .arg(100.0 * tflops / 494.5, 0, 'f', 1));
            return;
        }
        QFAIL("no aten::mm");
    }

    // Points of low intensity only (lstm.pt.trace's: its two at ~8 FLOPs/byte): the plot still
    // reaches every roof's ridge, so that the knees are in view, not only slanted lines.
    void everyRidgeIsInView()
    {
        analysis::Roofline roofline;
        roofline.peaks = *analysis::devicePeaksFor("NVIDIA H200");
        analysis::RooflinePoint point;
        point.name = "aten::addmm";
        point.flopsPerByte = 8;
        point.tflopsPerS = 0.05;
        point.deviceNs = 1000;
        roofline.points.push_back(point);
        RooflinePlot plot;
        plot.setRoofline(roofline);
        const double fp8Ridge = *roofline.peaks.peakTflops(analysis::PeakKind::Fp8) / *roofline.peaks.peakTBps();
        QVERIFY(fp8Ridge > 400 && fp8Ridge < 420); // 1979 TFLOP/s over 4.8 TB/s
        QVERIFY(plot.xAxis->range().upper >= fp8Ridge);
        QVERIFY(plot.xAxis->range().lower <= 8);
        QVERIFY(plot.yAxis->range().upper >= 1979);
    }

    void plotAndPanel()
    {
        TimelineWidget timeline;
        timeline.resize(1400, 700);
        RooflinePanel panel(&timeline);
        panel.resize(900, 500);
        QSignalSpy ready(&panel, &RooflinePanel::rooflineReady);
        const auto trace = testing::fixtureTrace("train_baseline");
        timeline.setTrace(trace);
        QTest::qWait(100);
        QCOMPARE(ready.count(), 0); // hidden: nothing computed
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY(ready.wait(60000));
        RooflinePlot* plot = panel.plot();
        const auto& roofline = plot->roofline();
        QCOMPARE(roofline.peaks.name, std::string("NVIDIA H200"));
        QCOMPARE(int(ready.last().at(0).toInt()), int(roofline.points.size()));
        QCOMPARE(plot->graphCount(), 5 + int(roofline.points.size())); // five roofs, one graph per point
        // The largest point (first: by device time) is an fp32 GEMM under the FP32 roof.
        const auto& top = roofline.points.front();
        QVERIFY(top.name == "aten::mm" || top.name == "aten::addmm");
        plot->replot();
        const QPointF at(plot->xAxis->coordToPixel(top.flopsPerByte), plot->yAxis->coordToPixel(top.tflopsPerS));
        QCOMPARE(plot->pointAt(at), 0);
        QVERIFY(plot->pointText(0).contains(QLatin1String("% of the FP32 peak")));
        QSignalSpy clicked(plot, &RooflinePlot::pointClicked);
        QTest::mouseClick(plot, Qt::LeftButton, {}, at.toPoint());
        QCOMPARE(clicked.count(), 1);
        // Shapes of one intensity and speed can overlap: the point nearest the click is chosen.
        const auto& chosen = roofline.points[std::size_t(clicked.first().at(0).toInt())];
        QCOMPARE(timeline.highlightedSlices().size(), chosen.kernels.size());
        QVERIFY(std::is_sorted(chosen.kernels.begin(), chosen.kernels.end(), [&](SliceId a, SliceId b) {
            return trace->slices().start[a] < trace->slices().start[b];
        }));

        // Peaks from the settings fields: a lower FP32 roof, the same points.
        panel.findChildren<QLineEdit*>().at(0)->setText(QStringLiteral("fp32=50"));
        panel.applyPeaks();
        QVERIFY(ready.wait(60000));
        QCOMPARE(plot->roofline().peaks.peakTflops(analysis::PeakKind::Fp32), std::optional(50.0));
        QCOMPARE(PeakSettings::load().tflops, QStringLiteral("fp32=50"));
        QSettings().clear();
    }
};

QTEST_MAIN(TstRooflinePanel)
#include "tst_rooflinepanel.moc"
