// The Operators and Kernels docks inside the main window: they fill when a trace is shown
// and their occurrence buttons select slices in the timeline.
#include "app/mainwindow.h"
#include "core/loading/loader.h"
#include "widgets/statspanel.h"
#include "widgets/timelinewidget.h"

#include <QDockWidget>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

using namespace ks;

class TestStatsDocks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("kinetoscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_statsdocks"));
    }

    void docksFollowTraceAndRevealOccurrences()
    {
        MainWindow window;
        auto* operatorsDock = window.findChild<QDockWidget*>(QStringLiteral("operatorsDock"));
        auto* kernelsDock = window.findChild<QDockWidget*>(QStringLiteral("kernelsDock"));
        auto* rangeDock = window.findChild<QDockWidget*>(QStringLiteral("rangeDock"));
        QVERIFY(operatorsDock && kernelsDock && rangeDock);
        auto* range = rangeDock->findChild<StatsPanel*>();
        QVERIFY(range);
        auto* operators = operatorsDock->findChild<StatsPanel*>();
        auto* kernels = kernelsDock->findChild<StatsPanel*>();
        QVERIFY(operators && kernels);

        auto loaded = loadTraceFile(std::string(KS_TEST_DATA) + "/mlp_ops.pt.trace.json.gz");
        QVERIFY(loaded.ok());
        QSignalSpy operatorsUpdated(operators, &StatsPanel::rowsUpdated);
        QSignalSpy kernelsUpdated(kernels, &StatsPanel::rowsUpdated);
        window.showTrace(loaded.trace, QStringLiteral("mlp_ops"));
        QTRY_VERIFY(!operatorsUpdated.isEmpty() && !kernelsUpdated.isEmpty());
        QCOMPARE(operators->proxy()->rowCount(), 81);
        QTRY_VERIFY(range->proxy()->rowCount() > 0);
        QVERIFY(kernels->proxy()->rowCount() > 0);

        // Stepping to the first occurrence of the longest kernel selects it in the timeline.
        kernels->view()->setCurrentIndex(kernels->proxy()->index(0, 0));
        QSignalSpy requested(kernels, &StatsPanel::occurrenceRequested);
        kernels->nextOccurrence();
        QCOMPARE(requested.count(), 1);
        QCOMPARE(window.timeline()->selectedSlice(), kernels->currentOccurrences().front());
    }
};

QTEST_MAIN(TestStatsDocks)
#include "tst_statsdocks.moc"
