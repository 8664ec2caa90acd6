// Recording from the main window: the timeline fills in live, follows the newest events
// while the user has not moved away, keeps the user's view when they have, and shows the
// complete trace when the program ends.
#include "app/mainwindow.h"
#include "app/recordingcontroller.h"
#include "widgets/timelinewidget.h"

#include "core/loading/loader.h"

#include <QMenuBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;

namespace {

std::size_t kernels(const std::shared_ptr<const Trace>& t)
{
    std::size_t n = 0;
    for (SliceId s = 0; t && s < t->slices().size(); ++s)
        n += t->classOf(s) == SliceClass::Kernel;
    return n;
}

TimeNs viewEnd(const TimelineWidget* timeline)
{
    return timeline->timeScale().viewEnd(timeline->timeAreaWidth());
}

} // namespace

class TestRecordingController : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        qputenv("KINETOSCOPE_INJECTION_LIBRARY", KS_FAKE_TARGET); // only has to exist
        qunsetenv("CUDA_INJECTION64_PATH");
        QCoreApplication::setOrganizationName(QStringLiteral("kinetoscope-tests"));
    }

    void fileMenuHasRecording()
    {
        MainWindow window;
        QStringList texts;
        for (QAction* a : window.menuBar()->actions().first()->menu()->actions())
            texts << a->text();
        QVERIFY(texts.contains(QStringLiteral("&Record…")));
        QVERIFY(texts.contains(QStringLiteral("S&top Recording")));
        QVERIFY(texts.contains(QStringLiteral("Save &As…")));
    }

    void saveAsWritesOffTheGuiThread()
    {
        MainWindow window;
        window.openFile(QStringLiteral(KS_TEST_DATA "/transformer.pt.trace.json.gz"));
        QTRY_VERIFY_WITH_TIMEOUT(window.trace() != nullptr, 20000);
        auto* controller = window.findChild<RecordingController*>();
        QSignalSpy saved(controller, &RecordingController::saved);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("copy.pt.trace.json.gz"));
        controller->saveTo(path);
        QVERIFY(saved.isEmpty()); // returned before the write finished
        QTRY_COMPARE_WITH_TIMEOUT(saved.size(), 1, 30000);
        QCOMPARE(saved.first().at(1).toBool(), true);
        const auto reloaded = loadTraceFile(path.toStdString());
        QVERIFY(reloaded.ok());
        QCOMPARE(reloaded.trace->slices().size(), window.trace()->slices().size());
        QCOMPARE(reloaded.trace->flows().size(), window.trace()->flows().size());
    }

    void timelineFillsInLive()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        auto* controller = window.findChild<RecordingController*>();
        QVERIFY(controller);
        TimelineWidget* timeline = window.timeline();
        controller->startRecording({KS_FAKE_TARGET, {"25"}, {}, {}}); // 250 kernels over ~2.5 s
        QVERIFY(controller->isRecording());
        QTRY_VERIFY_WITH_TIMEOUT(kernels(window.trace()) >= 30, 10000);
        // Following: the view reaches the newest event.
        QTRY_VERIFY_WITH_TIMEOUT(kernels(window.trace()) >= 60, 10000);
        QVERIFY(viewEnd(timeline) + 2 * timeline->timeScale().nsPerPixel() >= window.trace()->endTime());

        // The user zooms into the beginning: later snapshots keep that view.
        const TimeNs start = window.trace()->startTime();
        timeline->setVisibleRange(start, start + 50000);
        const TimeScale chosen = timeline->timeScale();
        const auto before = window.trace();
        QTRY_VERIFY_WITH_TIMEOUT(window.trace() != before && kernels(window.trace()) > kernels(before), 5000);
        QCOMPARE(timeline->timeScale().viewStart(), chosen.viewStart());
        QCOMPARE(timeline->timeScale().nsPerPixel(), chosen.nsPerPixel());

        QTRY_VERIFY_WITH_TIMEOUT(!controller->isRecording(), 20000);
        QCOMPARE(kernels(window.trace()), std::size_t(250));
        QVERIFY(window.windowTitle().contains(QStringLiteral("finished")));
    }
};

QTEST_MAIN(TestRecordingController)
#include "tst_recordingcontroller.moc"
