// The Roofline dock of the main window (issue 37) on train_baseline (H200, fp32 GEMMs on SIMT
// kernels, TF32 off): View > Roofline shows it, its points for aten::mm and aten::addmm carry
// the TFLOP/s recomputed here from the fixture's own Input Dims and kernel durations (nlohmann's
// DOM, which the loader never uses), and clicking a point highlights its kernels on the timeline.
// The Insights dock's low-gemm-efficiency follows the peaks kept in the settings.
#include "app/mainwindow.h"
#include "fixtureevents.h"
#include "widgets/insightsmodel.h"
#include "widgets/insightspanel.h"
#include "widgets/peaksettings.h"
#include "widgets/rooflinepanel.h"
#include "widgets/rooflineplot.h"
#include "widgets/timelinewidget.h"
#include "windowtesting.h"

#include <QAction>
#include <QDockWidget>
#include <QMenuBar>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <map>
#include <set>

using namespace ks;

namespace {

// Per GEMM op name and Input Dims (as nlohmann dumps them): FLOPs from the dims, and the
// kernels its calls launched (by External id) with their time.
struct GemmShape {
    double flops = 0, kernelUs = 0;
    std::set<std::int64_t> externalIds;
};

std::map<std::pair<std::string, std::string>, GemmShape> gemmShapesOf(const kstest::FixtureEvents& fixture)
{
    std::map<std::pair<std::string, std::string>, GemmShape> shapes;
    std::map<std::int64_t, std::pair<std::string, std::string>> shapeOfOp;
    for (const auto& e : fixture.slices) {
        const std::string name = e.value("name", "");
        if (e.value("cat", "") != "cpu_op" || (name != "aten::mm" && name != "aten::addmm"))
            continue;
        const auto& dims = e["args"]["Input Dims"];
        const std::size_t a = name == "aten::addmm" ? 1 : 0;
        const double m = dims[a][0], k = dims[a][1], n = dims[a + 1][1];
        const std::pair key(name, dims.dump());
        shapes[key].flops += 2 * m * n * k;
        const std::int64_t id = e["args"]["External id"];
        shapes[key].externalIds.insert(id);
        shapeOfOp[id] = key;
    }
    for (const auto& e : fixture.slices) {
        if (e.value("cat", "") != "kernel")
            continue;
        const auto it = shapeOfOp.find(e["args"].value("External id", std::int64_t(-1)));
        if (it != shapeOfOp.end())
            shapes[it->second].kernelUs += e["dur"].get<double>();
    }
    return shapes;
}

std::string withoutSpaces(std::string text)
{
    text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
    return text;
}

} // namespace

class TestRooflineDock : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { kstest::useTestSettings(); }

    void viewMenuShowsTheGemmsOnTheRoofline()
    {
        MainWindow window;
        QVERIFY(kstest::showActive(window, {1600, 1000}));
        QVERIFY(kstest::openAndWait(window, QStringLiteral(KS_TEST_DATA "/train_baseline.pt.trace.json.gz")));
        auto* dock = window.findChild<QDockWidget*>(QStringLiteral("rooflineDock"));
        QVERIFY(dock);
        QVERIFY(!dock->isVisible()); // hidden until asked for
        auto* panel = qobject_cast<RooflinePanel*>(dock->widget());
        QVERIFY(panel);
        QSignalSpy ready(panel, &RooflinePanel::rooflineReady);

        // View > Roofline.
        QMenu* view = nullptr;
        for (QAction* menu : window.menuBar()->actions()) {
            if (menu->menu() && menu->text().remove(QLatin1Char('&')) == QLatin1String("View"))
                view = menu->menu();
        }
        QVERIFY(view);
        QAction* show = nullptr;
        for (QAction* action : view->actions()) {
            if (action->text() == QLatin1String("Roofline"))
                show = action;
        }
        QVERIFY(show);
        show->trigger();
        QVERIFY(dock->isVisible());
        QVERIFY(ready.wait(60000));

        RooflinePlot* plot = panel->plot();
        const analysis::Roofline& roofline = plot->roofline();
        QCOMPARE(roofline.peaks.name, std::string("NVIDIA H200"));
        const kstest::FixtureEvents fixture("train_baseline");
        const auto shapes = gemmShapesOf(fixture);
        QCOMPARE(shapes.size(), std::size_t(12)); // 8 shapes of mm, 4 of addmm
        std::size_t matched = 0;
        for (std::size_t i = 0; i < roofline.points.size(); ++i) {
            const analysis::RooflinePoint& p = roofline.points[i];
            const auto it = shapes.find({p.name, withoutSpaces(p.shapes)});
            if (it == shapes.end())
                continue;
            ++matched;
            const GemmShape& g = it->second;
            QCOMPARE(p.flops, g.flops);
            const double tflops = g.flops / (g.kernelUs * 1e-6) * 1e-12;
            QVERIFY2(std::abs(p.tflopsPerS - tflops) < 1e-3 * tflops, p.shapes.c_str());
            QVERIFY(tflops > 30 && tflops < 67); // fp32 SIMT on an H200: under the FP32 roof
            QCOMPARE(p.roof, std::optional(analysis::PeakKind::Fp32));
            QVERIFY(std::abs(*p.peakFraction - tflops / 67.0) < 1e-3);
            QCOMPARE(p.bound, analysis::Bound::Compute);
            QVERIFY(plot->pointText(int(i)).contains(QLatin1String("% of the FP32 peak")));
        }
        QCOMPARE(matched, shapes.size());

        // Clicking the largest GEMM point highlights the kernels of its calls on the timeline:
        // those whose External id is one of its ops'.
        const auto top = std::find_if(roofline.points.begin(), roofline.points.end(), [&](const auto& p) {
            return shapes.count({p.name, withoutSpaces(p.shapes)});
        });
        QVERIFY(top != roofline.points.end());
        plot->replot();
        const QPointF at(plot->xAxis->coordToPixel(top->flopsPerByte), plot->yAxis->coordToPixel(top->tflopsPerS));
        QSignalSpy clicked(plot, &RooflinePlot::pointClicked);
        QTest::mouseClick(plot, Qt::LeftButton, {}, at.toPoint());
        QCOMPARE(clicked.count(), 1);
        const auto& chosen = roofline.points[std::size_t(clicked.first().at(0).toInt())];
        const GemmShape& g = shapes.at({chosen.name, withoutSpaces(chosen.shapes)});
        const Trace& trace = *window.trace();
        const std::vector<SliceId>& highlighted = window.timeline()->highlightedSlices();
        QVERIFY(!highlighted.empty());
        QCOMPARE(highlighted.size(), chosen.kernels.size());
        double us = 0;
        for (const SliceId k : highlighted) {
            QCOMPARE(trace.classOf(k), SliceClass::Kernel);
            QVERIFY(g.externalIds.count(trace.slices().externalId[k]));
            us += double(trace.slices().duration[k]) / 1000.0;
        }
        QVERIFY(std::abs(us - g.kernelUs) < 1e-3 * g.kernelUs);
    }

    // The Insights dock measures low-gemm-efficiency against the user's roofs from the settings
    // (the Roofline dock's fields): the same finding as the core's with those overrides, and
    // fewer shapes than against the datasheet's TF32 roof.
    void insightsUseTheSettingsPeaks()
    {
        PeakSettings{QStringLiteral("tf32=100"), QString()}.save();
        const auto clear = qScopeGuard([] { PeakSettings{}.save(); });
        MainWindow window;
        QVERIFY(kstest::showActive(window, {1600, 1000}));
        auto* panel = window.findChild<InsightsPanel*>();
        QVERIFY(panel);
        QSignalSpy ready(panel, &InsightsPanel::insightsReady);
        QVERIFY(kstest::openAndWait(window, QStringLiteral(KS_TEST_DATA "/train_baseline.pt.trace.json.gz")));
        QVERIFY(ready.count() > 0 || ready.wait(60000));
        const analysis::Insight* shown = nullptr;
        for (int r = 0; r < panel->model()->rowCount(); ++r) {
            if (panel->model()->insightAt(r)->id == "low-gemm-efficiency")
                shown = panel->model()->insightAt(r);
        }
        QVERIFY(shown);
        const auto facts = facts::makeTraceFacts(window.trace());
        const auto titleOf = [&](const analysis::PeakOverrides& peaks) {
            for (const auto& insight : analysis::findInsights(*facts, peaks)) {
                if (insight.id == "low-gemm-efficiency")
                    return insight.title;
            }
            return std::string();
        };
        QCOMPARE(shown->title, titleOf(PeakSettings::load().overrides()));
        QVERIFY(shown->title.rfind("5 GEMM shapes under 40 %", 0) == 0);
        QVERIFY(titleOf({}).rfind("15 GEMM shapes under 40 %", 0) == 0);
    }
};

QTEST_MAIN(TestRooflineDock)
#include "tst_rooflinedock.moc"
