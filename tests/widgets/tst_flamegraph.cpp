// The flame graph widget and dock: nodes where they are drawn, zoom, search, double-click
// for occurrences, the panel's trees (GPU time, bottom-up, a step) and its diff of
// train_baseline -> train_optimized.
#include "core/analysis/calltree.h"
#include "core/facts/tracefacts.h"
#include "core/gpu/tensorcores.h"
#include "fixtureloader.h"
#include "widgets/calltreemodel.h"
#include "widgets/flamegraphpanel.h"
#include "widgets/flamegraphwidget.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QHelpEvent>
#include <QImage>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>
#include <QTreeView>

using namespace ks;

namespace {

std::uint32_t firstFp32Gemm(const FlameGraphData& d)
{
    for (std::uint32_t n = 1; n < d.size(); ++n) {
        if (d.kind[n] == analysis::CallFrameKind::Gpu && gpu::isFp32GemmKernel(d.label[n].mid(6).toStdString()))
            return n;
    }
    return FlameGraphData::kNone;
}

} // namespace

class TstFlameGraph : public QObject {
    Q_OBJECT

private slots:
    void nodesWhereTheyAreDrawn()
    {
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("train_baseline"));
        analysis::CallTreeOptions options;
        options.gpuFrames = true;
        const auto tree = analysis::buildCallTree(*facts, options);
        const auto data = makeFlameGraphData(*facts->trace, tree, analysis::FoldedTime::Gpu);
        QCOMPARE(data->width[0], double(tree.gpuTotal[0]));
        FlameGraphWidget flame;
        flame.resize(1600, 900);
        flame.setData(data);
        // The widest fp32 GEMM kernel leaf: drawn under its launching op, found where drawn.
        std::uint32_t gemm = firstFp32Gemm(*data);
        QVERIFY(gemm != FlameGraphData::kNone);
        for (std::uint32_t n = gemm; n < data->size(); ++n) {
            if (data->kind[n] == analysis::CallFrameKind::Gpu && data->label[n] == data->label[gemm]
                && data->width[n] > data->width[gemm])
                gemm = n;
        }
        QRectF box = flame.nodeRect(gemm);
        QVERIFY(box.width() >= 1.0);
        QCOMPARE(flame.nodeAt(box.center().toPoint()), gemm);
        const QString launcher = data->label[data->parent[gemm]];
        QVERIFY2(launcher == "aten::mm" || launcher == "aten::addmm", qPrintable(launcher));
        // Widths are the GPU time: the root spans the widget, the leaf its share.
        QCOMPARE(flame.nodeRect(0).width(), 1600.0);
        QVERIFY(std::abs(box.width() - 1600.0 * data->width[gemm] / data->width[0]) < 1e-6);
        // Zoom into the launcher: it spans the width, its ancestors are rows above it.
        const std::uint32_t parent = data->parent[gemm];
        QTest::mouseClick(&flame, Qt::LeftButton, {}, flame.nodeRect(parent).center().toPoint());
        QCOMPARE(flame.zoomNode(), parent);
        QCOMPARE(flame.nodeRect(parent).width(), 1600.0);
        QVERIFY(flame.nodeRect(gemm).width() > box.width());
        QCOMPARE(flame.nodeAt(QPoint(5, flame.rowHeight() / 2)), std::uint32_t(0)); // the root row above
        // Double-click asks for the occurrences; search dims what does not match.
        QSignalSpy occurrences(&flame, &FlameGraphWidget::occurrencesRequested);
        box = flame.nodeRect(gemm);
        QTest::mouseDClick(&flame, Qt::LeftButton, {}, box.center().toPoint());
        QCOMPARE(occurrences.count(), 1);
        QCOMPARE(occurrences.first().first().value<std::uint32_t>(), gemm);
        flame.setCurrentNode(FlameGraphData::kNone); // no outline over the fill
        const QPoint inGemm(int(box.left()) + 1, int(box.center().y()));
        const QColor before = flame.grab().toImage().pixelColor(inGemm);
        flame.setSearchText(QStringLiteral("no frame has this name"));
        const QColor dimmed = flame.grab().toImage().pixelColor(inGemm);
        QVERIFY(dimmed.hsvSaturation() < before.hsvSaturation());
        flame.setSearchText(data->label[gemm].mid(6, 12));
        QCOMPARE(flame.grab().toImage().pixelColor(inGemm), before);
        // Hover: the node's numbers.
        const QString tip = data->describe(gemm);
        QVERIFY(tip.contains(QStringLiteral("Calls %1").arg(tree.calls[data->sourceNode[gemm]])));
        QVERIFY(tip.contains(QStringLiteral("GPU total ")));
        QHelpEvent help(QEvent::ToolTip, inGemm, flame.mapToGlobal(inGemm));
        QApplication::sendEvent(&flame, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QCOMPARE(QToolTip::text(), tip);
    }

    void panelTreesAndOccurrences()
    {
        FlameGraphPanel panel(nullptr);
        QSignalSpy ready(&panel, &FlameGraphPanel::treeReady);
        panel.setTrace(testing::fixtureTrace("train_baseline"));
        QVERIFY(!ready.wait(300)); // hidden (a dock tab behind another): nothing computed
        panel.show();
        QVERIFY(ready.wait(20000));
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("train_baseline"));
        const auto cpuTree = analysis::buildCallTree(*facts);
        QCOMPARE(panel.model()->flameData()->width[0], double(cpuTree.cpuTotal[0]));
        QCOMPARE(panel.model()->columnCount(), 6);
        QCOMPARE(panel.scopeBox()->count(), 2 + 3); // whole, range, three steps
        // GPU time: the kernels' leaves; each leaf's occurrences are its kernels.
        panel.timeBox()->setCurrentIndex(1);
        QVERIFY(ready.wait(20000));
        const FlameGraphData* data = panel.model()->flameData();
        const std::uint32_t gemm = firstFp32Gemm(*data);
        QVERIFY(gemm != FlameGraphData::kNone);
        const auto slices = panel.occurrencesOf(gemm);
        QCOMPARE(slices.size(), std::size_t(data->calls[gemm]));
        for (const SliceId s : slices)
            QCOMPARE(QString::fromStdString(std::string(facts->trace->str(facts->trace->slices().name[s]))),
                     data->label[gemm].mid(6));
        // Bottom-up: the kernel on the first level, its occurrences all its launches' kernels.
        panel.directionBox()->setCurrentIndex(1);
        QVERIFY(ready.wait(20000));
        data = panel.model()->flameData();
        QVERIFY(data->bottomUp);
        std::uint32_t first = FlameGraphData::kNone;
        for (std::size_t i = 0; i < data->childCount(0); ++i) {
            if (gpu::isFp32GemmKernel(data->label[data->child(0, i)].mid(6).toStdString()))
                first = data->child(0, i);
        }
        QVERIFY(first != FlameGraphData::kNone);
        std::size_t kernels = 0;
        for (SliceId s = 0; s < facts->trace->slices().size(); ++s)
            kernels += QString::fromStdString(std::string(facts->trace->str(facts->trace->slices().name[s])))
                    == data->label[first].mid(6)
                ? 1
                : 0;
        QCOMPARE(panel.occurrencesOf(first).size(), kernels);
        // One step: its tree is about a third of the trace's.
        panel.directionBox()->setCurrentIndex(0);
        QVERIFY(ready.wait(20000));
        const double whole = panel.model()->flameData()->width[0];
        panel.scopeBox()->setCurrentIndex(3);
        QVERIFY(ready.wait(20000));
        const double step = panel.model()->flameData()->width[0];
        QVERIFY(step > 0.2 * whole && step < 0.5 * whole);
    }

    void diffOfBaselineAndOptimized()
    {
        FlameGraphPanel panel(nullptr);
        panel.show();
        QSignalSpy ready(&panel, &FlameGraphPanel::treeReady);
        panel.timeBox()->setCurrentIndex(1);
        panel.setComparison(testing::fixtureTrace("train_baseline"), testing::fixtureTrace("train_optimized"));
        QVERIFY(panel.diffBox()->isChecked());
        QVERIFY(ready.wait(20000));
        const FlameGraphData* data = panel.model()->flameData();
        QVERIFY(data->isDiff);
        QCOMPARE(panel.model()->columnCount(), 5);
        const std::uint32_t gemm = firstFp32Gemm(*data);
        QVERIFY(gemm != FlameGraphData::kNone);
        QVERIFY(data->vanished(gemm));
        QCOMPARE(data->width[gemm], data->base[gemm]);
        QVERIFY(data->next[0] < data->base[0]); // NEW is faster per step
        FlameGraphWidget& flame = *panel.flameGraph();
        flame.resize(1600, 900);
        QVERIFY(flame.nodeRect(gemm).width() > 0);
    }
};

QTEST_MAIN(TstFlameGraph)
#include "tst_flamegraph.moc"
