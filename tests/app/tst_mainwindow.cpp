#include "app/mainwindow.h"
#include "windowtesting.h"
#include "widgets/detailspanel.h"
#include "widgets/searchbar.h"
#include "widgets/timelinewidget.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrl>

using namespace ks;

namespace {

QString fixture(const char* name)
{
    return QStringLiteral(KS_TEST_DATA "/%1.pt.trace.json.gz").arg(QLatin1String(name));
}

using kstest::visibleMessageBox;

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        kstest::useTestSettings();
    }

    void opensFileInBackground()
    {
        MainWindow window;
        window.show();
        QSignalSpy changed(&window, &MainWindow::traceChanged);
        window.openFile(fixture("transformer"));
        QVERIFY(window.isLoading());
        QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, 20000);
        QVERIFY(window.trace());
        QCOMPARE(window.trace()->slices().size(), std::size_t(4451));
        QCOMPARE(window.timeline()->trace(), window.trace());
        QCOMPARE(window.windowTitle(), QStringLiteral("transformer.pt.trace.json.gz — Kinetoscope"));
        QVERIFY(!window.isLoading());
        // The timeline opens showing the whole trace (its events: not a far "Record Window End").
        const TimelineWidget& timeline = *window.timeline();
        const TimeExtent content = contentExtent(*window.trace());
        QCOMPARE(timeline.timeScale().viewStart(), content.start);
        QVERIFY2(std::abs(timeline.timeScale().viewEnd(timeline.timeAreaWidth()) - content.end)
                     <= TimeNs(timeline.timeScale().nsPerPixel()) + 1,
                 qPrintable(QStringLiteral("%1 vs %2").arg(timeline.timeScale().viewEnd(timeline.timeAreaWidth())).arg(content.end)));
        const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
        QCOMPARE(recent.value(0), QFileInfo(fixture("transformer")).absoluteFilePath());

        // Selecting from outside (as the statistics docks do) fills the details dock.
        const SliceId s = window.trace()->slices().size() / 2;
        window.revealSlice(s);
        QCOMPARE(window.timeline()->selectedSlice(), s);
        QCOMPARE(window.detailsPanel()->slice(), s);

        window.closeTrace();
        QVERIFY(!window.trace());
        QCOMPARE(window.windowTitle(), QStringLiteral("Kinetoscope"));
    }

    // The GUI thread keeps running timers while a 87k-slice trace loads.
    void staysResponsiveWhileLoading()
    {
        MainWindow window;
        window.show();
        QSignalSpy changed(&window, &MainWindow::traceChanged);
        QElapsedTimer clock;
        qint64 last = 0, worstGap = 0;
        int ticksWhileLoading = 0;
        bool wasLoading = false;
        QTimer tick;
        tick.setInterval(5);
        // Only gaps that lie entirely within the parse count: handing the finished trace
        // to the panels afterwards is GUI-thread work by design.
        connect(&tick, &QTimer::timeout, [&] {
            const bool loading = window.isLoading();
            if (wasLoading && loading) {
                worstGap = std::max(worstGap, clock.elapsed() - last);
                ++ticksWhileLoading;
            }
            wasLoading = loading;
            last = clock.elapsed();
        });
        clock.start();
        tick.start();
        window.openFile(fixture("big"));
        QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, 60000);
        tick.stop();
        QCOMPARE(window.trace()->slices().size(), std::size_t(86966));
        QVERIFY(ticksWhileLoading > 3);
        QVERIFY2(worstGap < 250, qPrintable(QString::number(worstGap)));
    }

    void cancelDropsTheLoad()
    {
        MainWindow window;
        window.show();
        QSignalSpy changed(&window, &MainWindow::traceChanged);
        window.openFile(fixture("big"));
        window.cancelLoading();
        QVERIFY(!window.isLoading());
        QTest::qWait(1500);
        QCOMPARE(changed.count(), 0);
        QVERIFY(!window.trace());
        QVERIFY(!visibleMessageBox(window));
    }

    void errorDialogNamesFileAndPlace()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("notatrace.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("42\n");
        file.close();
        MainWindow window;
        window.show();
        window.openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(visibleMessageBox(window) != nullptr, 10000);
        const QString text = visibleMessageBox(window)->text();
        QVERIFY2(text.contains(path), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("byte")), qPrintable(text));
        QVERIFY(!window.trace());

        window.openFile(dir.filePath(QStringLiteral("missing.json")));
        QTRY_VERIFY_WITH_TIMEOUT(window.findChildren<QMessageBox*>().size() >= 1, 10000);
    }

    void opensDemoAndDroppedFiles()
    {
        MainWindow window;
        window.show();
        QSignalSpy changed(&window, &MainWindow::traceChanged);
        QVERIFY(QFileInfo::exists(MainWindow::demoTracePath()));
        window.openDemo();
        QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, 20000);
        QVERIFY(window.trace()->slices().size() > 0);
        QVERIFY(window.windowTitle().startsWith(QStringLiteral("demo.pt.trace.json.gz")));

        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(fixture("square"))});
        // (A synthetic QDropEvent never reaches the widget without a drag in progress, so
        // the test goes through the handler that dropEvent() calls.)
        QVERIFY(window.openDroppedData(&mime));
        QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 2, 20000);
        QCOMPARE(window.trace()->slices().size(), std::size_t(24));
    }

    void findShortcutOpensSearch()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(window.searchBar()->isHidden());
        QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
        QVERIFY(window.searchBar()->isVisible());
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
