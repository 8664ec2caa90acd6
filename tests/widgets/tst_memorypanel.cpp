// The Memory dock on train_baseline: the report arrives off the GUI thread, the GPU is shown
// first with its peak and what is alive there (the same blocks as the core's liveAllocations),
// a row selects its op on the timeline, a chosen time lists what is alive then, and the
// Operator memory tab holds the device's table.
#include "core/analysis/memoryreport.h"
#include "fixtureloader.h"
#include "widgets/liveallocationsmodel.h"
#include "widgets/memorychart.h"
#include "widgets/memorypanel.h"
#include "widgets/operatormemorymodel.h"
#include "widgets/timelinewidget.h"

#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

using namespace ks;

class TstMemoryPanel : public QObject {
    Q_OBJECT

private slots:
    void showsWhatIsAliveAtThePeak()
    {
        TimelineWidget timeline;
        timeline.resize(1400, 700);
        MemoryPanel panel(&timeline);
        QSignalSpy ready(&panel, &MemoryPanel::reportReady);
        const auto trace = testing::fixtureTrace("train_baseline");
        timeline.setTrace(trace);
        QVERIFY(ready.wait(60000));
        QVERIFY(panel.hasResult());
        const analysis::DeviceMemory* gpu = panel.currentDevice();
        QVERIFY(gpu);
        QCOMPARE(gpu->name, std::string("GPU0"));
        QCOMPARE(gpu->peakAllocated, std::int64_t(543587840)); // the plugin's peak
        QCOMPARE(panel.chart()->unitName(), QStringLiteral("MB"));
        QCOMPARE(panel.chart()->yAxis->label(), QStringLiteral("GPU0 (MB)"));
        // The legend is beside the curves, not over the reserved line along their top, and is
        // drawn before its items (after them, its background would hide them).
        MemoryChart* chart = panel.chart();
        panel.resize(900, 300);
        chart->replot();
        QVERIFY(!chart->legend->outerRect().intersects(chart->axisRect()->outerRect()));
        QVERIFY(chart->legend->outerRect().left() >= chart->axisRect()->outerRect().right());
        QCOMPARE(chart->legend->itemCount(), 2);
        const QList<QCPLayerable*> drawOrder = chart->legend->layer()->children();
        for (int i = 0; i < chart->legend->itemCount(); ++i)
            QVERIFY(drawOrder.indexOf(chart->legend) < drawOrder.indexOf(chart->legend->item(i)));

        // At the peak: the core's live blocks, largest first.
        const auto report = analysis::makeMemoryReport(facts::makeTraceFacts(trace));
        const auto live = analysis::liveAllocations(*report.device("GPU0"), report.device("GPU0")->peakEvent);
        LiveAllocationsModel* model = panel.liveModel();
        QCOMPARE(model->rowCount(), int(live.size()));
        QCOMPARE(model->time(), gpu->peakTime);
        QCOMPARE(model->index(0, LiveAllocationsModel::SizeColumn).data(LiveAllocationsModel::kSortRole).toLongLong(),
                 qlonglong(report.device("GPU0")->allocations[live[0]].bytes));

        // A row selects the op that allocated the block.
        auto* view = panel.liveView();
        const auto* proxy = static_cast<const QSortFilterProxyModel*>(view->model());
        const int sourceRow = 0;
        view->setCurrentIndex(proxy->mapFromSource(model->index(sourceRow, 0)));
        const SliceId op = model->opAt(sourceRow);
        QVERIFY(op != kNoSlice);
        QCOMPARE(timeline.selectedSlice(), op);
        QCOMPARE(model->index(sourceRow, LiveAllocationsModel::OpColumn).data().toString(),
                 QString::fromUtf8(trace->str(trace->slices().name[op])));

        // A time before every event: nothing alive; a click on the timeline's memory track
        // goes through the same slot.
        panel.showTime(trace->startTime() - 1);
        QCOMPARE(model->rowCount(), 0);
        Q_EMIT timeline.plotTimeClicked(0, gpu->peakTime);
        QCOMPARE(model->rowCount(), int(live.size()));

        // The Operator memory table of the device.
        QVERIFY(panel.operatorModel()->rowCount() > 10);
        QCOMPARE(panel.operatorModel()->table().device, std::string("GPU0"));

        // train_baseline was recorded with stacks: the column shows a frame of the user's code.
        QVERIFY(model->hasPythonStacks());
        QVERIFY(!view->isColumnHidden(LiveAllocationsModel::StackColumn));
        QVERIFY(model->index(0, LiveAllocationsModel::StackColumn).data().toString().contains(QLatin1String(".py(")));
    }

    // cnn_amp has memory events but no Python frames: no empty stack column.
    void noStackColumnWithoutStacks()
    {
        TimelineWidget timeline;
        MemoryPanel panel(&timeline);
        QSignalSpy ready(&panel, &MemoryPanel::reportReady);
        timeline.setTrace(testing::fixtureTrace("cnn_amp"));
        QVERIFY(ready.wait(60000));
        QVERIFY(panel.liveModel()->rowCount() > 0);
        QVERIFY(!panel.liveModel()->hasPythonStacks());
        QVERIFY(panel.liveView()->isColumnHidden(LiveAllocationsModel::StackColumn));
    }
};

QTEST_MAIN(TstMemoryPanel)
#include "tst_memorypanel.moc"
