// The main window on a 1280×720 laptop screen (issue 35): with two ranks open (member pickers
// on the docks) it still fits with its status bar on screen, the first-run size leaves room
// for the window's frame, and the search jumps to the first match on Enter right after typing.
#include "app/mainwindow.h"
#include "app/workspacecontroller.h"
#include "core/loading/loader.h"
#include "widgets/searchbar.h"
#include "widgets/timelinewidget.h"
#include "windowtesting.h"

#include <QLineEdit>
#include <QScreen>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>

using namespace ks;

namespace {

QString fixture(const char* name)
{
    return QStringLiteral(KS_TEST_DATA "/%1.pt.trace.json.gz").arg(QLatin1String(name));
}

// A title bar and a task bar take this much of a 720-pixel screen.
constexpr int kDecorations = 60;

} // namespace

class TestSmallScreen : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { kstest::useTestSettings(); }

    void twoRanksFitA1280x720Screen()
    {
        MainWindow window;
        const QSize screen(kstest::kSmallScreen.width(), kstest::kSmallScreen.height() - kDecorations);
        window.resize(screen);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openFiles({fixture("ddp_rank0"), fixture("ddp_rank1")});
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 60000);
        QTest::qWait(200); // the docks take their sizes after the first layout
        QVERIFY2(window.minimumSizeHint().height() <= screen.height(),
                 qPrintable(QString::number(window.minimumSizeHint().height())));
        QVERIFY2(window.minimumSizeHint().width() <= screen.width(),
                 qPrintable(QString::number(window.minimumSizeHint().width())));
        QTRY_VERIFY2(window.height() <= screen.height(), qPrintable(QString::number(window.height())));
        // The status bar is inside the window, and the timeline keeps half of it.
        const QRect status = window.statusBar()->geometry();
        QVERIFY(status.isValid() && status.bottom() < window.height());
        QVERIFY(status.height() > 0);
        QTRY_VERIFY(window.timeline()->height() >= window.height() / 2);
    }

    // The first run sizes the window inside the screen's available area with room to spare
    // for its frame (the window's own size excludes the title bar).
    void firstRunSizeLeavesRoomForTheFrame()
    {
        MainWindow window;
        const QRect available = window.screen()->availableGeometry();
        QVERIFY(window.width() <= available.width());
        QVERIFY2(window.height() <= available.height() * 9 / 10,
                 qPrintable(QStringLiteral("%1 of %2").arg(window.height()).arg(available.height())));
    }

    void enterRightAfterTypingJumpsToTheFirstMatch()
    {
        const auto trace = loadTraceFile(fixture("transformer").toStdString()).trace;
        SliceId first = kNoSlice;
        for (SliceId s = 0; s < trace->slices().size(); ++s) {
            if (QString::fromUtf8(trace->str(trace->slices().name[s])).contains(QStringLiteral("aten::mm"))
                && (first == kNoSlice || trace->slices().start[s] < trace->slices().start[first]))
                first = s;
        }
        QVERIFY(first != kNoSlice);
        MainWindow window;
        QVERIFY(kstest::showActive(window, kstest::kSmallScreen));
        QVERIFY(kstest::openAndWait(window, fixture("transformer")));
        QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
        QVERIFY(window.searchBar()->lineEdit()->hasFocus());
        QTest::keyClicks(window.searchBar()->lineEdit(), QStringLiteral("aten::mm"));
        QTest::keyClick(window.searchBar()->lineEdit(), Qt::Key_Return); // before the search's debounce
        QCOMPARE(window.timeline()->selectedSlice(), first);
        QCOMPARE(window.searchBar()->currentIndex(), 0);
    }
};

QTEST_MAIN(TestSmallScreen)
#include "tst_smallscreen.moc"
