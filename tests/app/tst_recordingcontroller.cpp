// Recording from the main window: the timeline fills in live, follows the newest events
// while the user has not moved away, keeps the user's view when they have, and shows the
// complete trace when the program ends.
#include "app/mainwindow.h"
#include "app/recorddialog.h"
#include "app/recordingcontroller.h"
#include "app/recordinghost.h"
#include "widgets/detailspanel.h"
#include "widgets/timelinewidget.h"
#include "windowtesting.h"

#include "core/loading/loader.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace ks;

namespace {

std::size_t kernels(const std::shared_ptr<const Trace>& t)
{
    std::size_t n = 0;
    for (SliceId s = 0; t && s < t->slices().size(); ++s)
        n += t->classOf(s) == SliceClass::Kernel;
    return n;
}

std::vector<TimeNs> kernelStarts(const std::shared_ptr<const Trace>& t)
{
    std::vector<TimeNs> starts;
    for (SliceId s = 0; t && s < t->slices().size(); ++s) {
        if (t->classOf(s) == SliceClass::Kernel)
            starts.push_back(t->slices().start[s]);
    }
    std::sort(starts.begin(), starts.end());
    return starts;
}

template <class Widget>
Widget* child(QWidget& parent, const char* name)
{
    auto* widget = parent.findChild<Widget*>(QLatin1String(name));
    if (!widget)
        qFatal("no widget %s", name);
    return widget;
}

TimeNs viewEnd(const TimelineWidget* timeline) { return timeline->timeScale().viewEnd(timeline->timeAreaWidth()); }

// All a RecordingController may use of its window, recorded: no MainWindow, menu bar or
// timeline.
class FakeHost : public RecordingHost {
public:
    QWidget* dialogParent() override { return &parent; }
    void addFileActions(const QList<QAction*>& added) override { actions += added; }
    void addStatusWidget(QWidget* widget) override { statusWidgets << widget; }
    void showStatusMessage(const QString& message, int) override { messages << message; }
    std::shared_ptr<const Trace> shownTrace() const override { return trace; }
    void showTrace(std::shared_ptr<const Trace> shown, const QString& title, bool newerSnapshot) override
    {
        trace = std::move(shown);
        titles << title;
        newerSnapshots += newerSnapshot ? 1 : 0;
    }
    TimeScale timelineScale() const override { return scale; }
    int timelineWidth() const override { return 1000; }
    void setTimelineScale(const TimeScale& s) override { scale = s; }
    void setTimelineRange(TimeNs start, TimeNs end) override { scale = TimeScale::fit(start, end, 1000); }
    void setTimelineLeftOutBefore(TimeNs time) override { leftOutBefore = time; }

    QWidget parent;
    QList<QAction*> actions;
    QList<QWidget*> statusWidgets;
    QStringList messages;
    std::shared_ptr<const Trace> trace;
    QStringList titles;
    int newerSnapshots = 0;
    TimeScale scale;
    TimeNs leftOutBefore = std::numeric_limits<TimeNs>::min();
};

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
        QVERIFY(texts.contains(QStringLiteral("&Pause Capture")));
        QVERIFY(texts.contains(QStringLiteral("Save &As…")));
    }

    // The controller records, follows and saves through its host alone.
    void recordsAndSavesThroughItsHostAlone()
    {
        auto owned = std::make_unique<FakeHost>();
        FakeHost* host = owned.get();
        RecordingController controller(std::move(owned), nullptr);
        QStringList texts;
        for (QAction* a : host->actions)
            texts << a->text();
        QCOMPARE(
            texts,
            QStringList({QStringLiteral("Save &As…"), QStringLiteral("&Record…"), QStringLiteral("&Pause Capture"),
                         QStringLiteral("Live Timeline: Recent &Events Only"), QStringLiteral("S&top Recording")}));
        QCOMPARE(host->statusWidgets.size(), 1);
        QAction* recentOnly = host->actions.at(3);
        QVERIFY(!recentOnly->isEnabled());

        controller.startRecording({KS_FAKE_TARGET, {"3"}, {}, {}}); // 30 kernels over ~0.3 s
        QVERIFY(recentOnly->isEnabled());
        QVERIFY(recentOnly->isChecked()); // the default options hold the most recent events
        QTRY_VERIFY_WITH_TIMEOUT(!controller.isRecording(), 20000);
        QVERIFY(!recentOnly->isEnabled());
        QCOMPARE(kernels(host->trace), std::size_t(30));
        QVERIFY(host->titles.last().endsWith(QStringLiteral("(finished)")));
        // Every snapshot after the first, and the finished trace, continue the one shown.
        QCOMPARE(host->newerSnapshots, int(host->titles.size()) - 1);

        QSignalSpy saved(&controller, &RecordingController::saved);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("recorded.pt.trace.json.gz"));
        controller.saveTo(path);
        QTRY_COMPARE_WITH_TIMEOUT(saved.size(), 1, 30000);
        QCOMPARE(saved.first().at(1).toBool(), true);
        QCOMPARE(host->messages.first(), QStringLiteral("Saving %1…").arg(path));
        QVERIFY(host->messages.last().startsWith(QStringLiteral("Saved %1 (").arg(path)));
        const auto reloaded = loadTraceFile(path.toStdString());
        QVERIFY(reloaded.ok());
        QCOMPARE(kernels(reloaded.trace), std::size_t(30));
    }

    // The dialog's choices become the session's options and the equivalent command line.
    void recordDialogOffersPyTorchAndCapture()
    {
        QSettings().remove(QStringLiteral("record"));
        RecordDialog dialog;
        // Defaults: automatic operators, the whole run.
        QCOMPARE(dialog.commandLine(), QStringList({QStringLiteral("collect"), QStringLiteral("--"), QString()}));
        QVERIFY(!dialog.options().pytorch);
        QVERIFY(!dialog.options().session.capture.filters());
        QCOMPARE(dialog.options().liveWindowSlices, RecordingOptions::kLiveWindowSlices); // checked by default

        child<QLineEdit>(dialog, "program")->setText(QStringLiteral("/usr/bin/python3"));
        child<QLineEdit>(dialog, "arguments")->setText(QStringLiteral("train.py --steps \"a b\""));
        child<QPlainTextEdit>(dialog, "environment")->setPlainText(QStringLiteral("CUDA_VISIBLE_DEVICES=1"));
        auto* pytorch = child<QComboBox>(dialog, "pytorch");
        pytorch->setCurrentIndex(pytorch->findData(QStringLiteral("ops-shapes")));
        auto* capture = child<QComboBox>(dialog, "capture");
        capture->setCurrentIndex(capture->findData(QStringLiteral("nvtx")));
        child<QLineEdit>(dialog, "nvtxName")->setText(QStringLiteral("train step"));
        child<QDoubleSpinBox>(dialog, "delay")->setValue(2.5);
        child<QLineEdit>(dialog, "stepMarker")->setText(QStringLiteral("iteration"));
        child<QCheckBox>(dialog, "startPaused")->setChecked(true);
        child<QCheckBox>(dialog, "liveWindow")->setChecked(false);
        QCOMPARE(dialog.commandLine(),
                 QStringList({QStringLiteral("collect"), QStringLiteral("--pytorch=ops-shapes"),
                              QStringLiteral("--capture-range=nvtx:train step"), QStringLiteral("--delay"),
                              QStringLiteral("2.5"), QStringLiteral("--step-marker"), QStringLiteral("iteration"),
                              QStringLiteral("--env"), QStringLiteral("CUDA_VISIBLE_DEVICES=1"), QStringLiteral("--"),
                              QStringLiteral("/usr/bin/python3"), QStringLiteral("train.py"), QStringLiteral("--steps"),
                              QStringLiteral("a b")}));
        QCOMPARE(child<QLabel>(dialog, "commandLine")->text(),
                 QStringLiteral("kinetoscope-cli collect --pytorch=ops-shapes '--capture-range=nvtx:train step' "
                                "--delay 2.5 --step-marker iteration --env CUDA_VISIBLE_DEVICES=1 -- "
                                "/usr/bin/python3 train.py --steps 'a b'"));
        const RecordingOptions options = dialog.options();
        QCOMPARE(options.pytorch, std::optional(collector::PyTorchOps::OpsShapes));
        QCOMPARE(options.session.capture.range, collector::CaptureRange::Nvtx);
        QCOMPARE(options.session.capture.nvtxName, std::string("train step"));
        QCOMPARE(options.session.delaySeconds, 2.5);
        QCOMPARE(options.session.durationSeconds, 0.0);
        QCOMPARE(options.session.stepMarker, std::string("iteration"));
        QVERIFY(options.startPaused);
        QCOMPARE(options.liveWindowSlices, std::size_t(0)); // the live timeline holds every event

        capture->setCurrentIndex(capture->findData(QStringLiteral("cudaProfilerApi")));
        QVERIFY(!child<QLineEdit>(dialog, "nvtxName")->isEnabled());
        QVERIFY(dialog.commandLine().contains(QStringLiteral("--capture-range=cudaProfilerApi")));
        QCOMPARE(dialog.options().session.capture.range, collector::CaptureRange::CudaProfilerApi);

        // The collector's own options: checked on accept (a bad item is named, the dialog stays).
        auto* collectorOptions = child<QLineEdit>(dialog, "collectorOptions");
        collectorOptions->setText(QStringLiteral("stats=maybe"));
        QString warning;
        QTimer closer;
        connect(&closer, &QTimer::timeout, &dialog, [&] {
            if (QMessageBox* box = kstest::visibleMessageBox(dialog)) {
                warning = box->text();
                box->accept();
            }
        });
        closer.start(10);
        dialog.show();
        dialog.accept();
        QVERIFY2(warning.contains(QStringLiteral("stats")), qPrintable(warning));
        QVERIFY(dialog.isVisible()); // not accepted
        closer.stop();
        collectorOptions->setText(QStringLiteral("stats=1,buffer_mb=16"));
        QCOMPARE(dialog.options().session.injectionOptions, std::string("stats=1,buffer_mb=16"));
        const QStringList line = dialog.commandLine();
        QCOMPARE(line.value(line.indexOf(QStringLiteral("--collector-options")) + 1),
                 QStringLiteral("stats=1,buffer_mb=16"));

        // Accepted choices come back the next time.
        dialog.accept();
        RecordDialog again;
        QCOMPARE(again.commandLine(), dialog.commandLine());
        QCOMPARE(again.options().liveWindowSlices, std::size_t(0));
        QSettings().remove(QStringLiteral("record"));
    }

    // Past its window the live timeline holds the latest events and the status line says so;
    // switched off mid-recording it holds every one again; the finished trace holds all.
    void liveWindowHoldsTheLatestEventsUntilSwitchedOff()
    {
        auto owned = std::make_unique<FakeHost>();
        FakeHost* host = owned.get();
        RecordingController controller(std::move(owned), nullptr);
        RecordingOptions options;
        options.liveWindowSlices = 100;
        controller.startRecording({KS_FAKE_TARGET, {"60"}, {}, {}}, options); // 10 kernels every 100 ms for ~6 s
        QTRY_VERIFY_WITH_TIMEOUT(host->trace && collector::liveWindowOf(*host->trace), 10000);
        QVERIFY(controller.isRecording());
        // Between half the window and all of it, and one flush's records (10 launches and kernels) more.
        const std::size_t shown = host->trace->slices().size();
        QVERIFY2(shown >= 50 && shown <= 100 + 40, qPrintable(QString::number(shown)));
        const auto* status = qobject_cast<QLabel*>(host->statusWidgets.first());
        QVERIFY2(status->text().contains(QStringLiteral("the latest %1 of").arg(shown)), qPrintable(status->text()));
        // The timeline marks the time before the window (its times count from the recording's start).
        QVERIFY(host->leftOutBefore > host->trace->startTime());
        QVERIFY(host->leftOutBefore < host->trace->endTime());

        host->actions.at(3)->setChecked(false); // Live Timeline: Recent Events Only
        QTRY_VERIFY_WITH_TIMEOUT(!collector::liveWindowOf(*host->trace) && host->trace->slices().size() > 140, 10000);
        QVERIFY(controller.isRecording());
        QVERIFY(!status->text().contains(QStringLiteral("latest")));
        QCOMPARE(host->leftOutBefore, std::numeric_limits<TimeNs>::min());
        QTRY_VERIFY_WITH_TIMEOUT(!controller.isRecording(), 20000);
        QCOMPARE(kernels(host->trace), std::size_t(600));
    }

    // Pause Capture while the program runs: it keeps running and streaming, but what it did
    // while paused is not in the trace (a gap of at least the pause in the kernels).
    void pauseLeavesOutWhatHappensWhilePaused()
    {
        MainWindow window;
        auto* controller = window.findChild<RecordingController*>();
        controller->startRecording({KS_FAKE_TARGET, {"25"}, {}, {}}); // 10 kernels every 100 ms for ~2.5 s
        QTRY_VERIFY_WITH_TIMEOUT(kernels(window.trace()) >= 20, 10000);
        controller->setCapturePaused(true);
        QVERIFY(controller->isCapturePaused());
        QTest::qWait(800);
        controller->setCapturePaused(false);
        QVERIFY(!controller->isCapturePaused());
        QTRY_VERIFY_WITH_TIMEOUT(!controller->isRecording(), 20000);
        const auto starts = kernelStarts(window.trace());
        QVERIFY2(starts.size() >= 20 && starts.size() <= 250 - 40, qPrintable(QString::number(starts.size())));
        TimeNs widestGap = 0;
        for (std::size_t i = 1; i < starts.size(); ++i)
            widestGap = std::max(widestGap, starts[i] - starts[i - 1]);
        QVERIFY2(widestGap >= 600000000, qPrintable(QString::number(widestGap)));
    }

    // Started paused: nothing is kept until Resume; here there is no Resume.
    void startPausedKeepsNothingWithoutResume()
    {
        MainWindow window;
        auto* controller = window.findChild<RecordingController*>();
        RecordingOptions options;
        options.startPaused = true;
        controller->startRecording({KS_FAKE_TARGET, {"3"}, {}, {}}, options);
        QVERIFY(controller->isCapturePaused());
        QTRY_VERIFY_WITH_TIMEOUT(!controller->isRecording(), 20000);
        QVERIFY(window.trace());
        QCOMPARE(kernels(window.trace()), std::size_t(0));
        QVERIFY(!controller->isCapturePaused());
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

    // A recording started over an open file begins fitted to its own events, with none of
    // the file's view; later snapshots keep what the user chose while watching: the selected
    // kernel (in Details too), the selected range and a collapsed group.
    void liveSnapshotsKeepTheUsersViewButNotTheFiles()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        TimelineWidget* timeline = window.timeline();
        window.openFile(QStringLiteral(KS_TEST_DATA "/transformer.pt.trace.json.gz"));
        QTRY_VERIFY_WITH_TIMEOUT(window.trace() != nullptr, 20000);
        const auto file = window.trace();
        const TimeNs fileStart = file->startTime();
        timeline->setVisibleRange(fileStart, fileStart + 50000);
        timeline->setSelectedRange(fileStart + 10000, fileStart + 20000);
        timeline->revealSlice(0);
        QCOMPARE(timeline->selectedSlice(), SliceId(0));

        auto* controller = window.findChild<RecordingController*>();
        controller->startRecording({KS_FAKE_TARGET, {"25"}, {}, {}}); // 250 kernels over ~2.5 s
        QTRY_VERIFY_WITH_TIMEOUT(window.trace() != file, 10000);
        QVERIFY(timeline->timeScale().viewStart() <= window.trace()->startTime());
        QVERIFY(viewEnd(timeline) >= window.trace()->endTime());
        QVERIFY(!timeline->hasSelectedRange());
        QCOMPARE(timeline->selectedSlice(), kNoSlice);

        QTRY_VERIFY_WITH_TIMEOUT(kernels(window.trace()) >= 30, 10000);
        const auto watched = window.trace();
        SliceId kernel = kNoSlice;
        for (SliceId s = 0; s < watched->slices().size() && kernel == kNoSlice; ++s) {
            if (watched->classOf(s) == SliceClass::Kernel)
                kernel = s;
        }
        const std::uint32_t gpu = watched->tracks()[watched->trackOf(kernel)].process;
        std::uint32_t other = kNoIndex;
        for (std::uint32_t p = 0; p < watched->processes().size(); ++p) {
            if (p != gpu)
                other = p;
        }
        QVERIFY(other != kNoIndex);
        const TimeNs kernelStart = watched->slices().start[kernel];
        const std::string kernelName(watched->str(watched->slices().name[kernel]));
        const std::int64_t otherPid = watched->processes()[other].pid.number;
        timeline->revealSlice(kernel);
        timeline->setProcessCollapsed(other, true);
        const TimeNs rangeStart = watched->startTime() + 1000, rangeEnd = kernelStart + 1000;
        timeline->setSelectedRange(rangeStart, rangeEnd);

        // Two newer snapshots, with more kernels than the watched one.
        QTRY_VERIFY_WITH_TIMEOUT(window.trace() != watched && kernels(window.trace()) > kernels(watched), 5000);
        const auto next = window.trace();
        QTRY_VERIFY_WITH_TIMEOUT(window.trace() != next && kernels(window.trace()) > kernels(next), 5000);
        const auto shown = window.trace();
        const SliceId selected = timeline->selectedSlice();
        QVERIFY(selected != kNoSlice);
        QCOMPARE(shown->slices().start[selected], kernelStart);
        QCOMPARE(std::string(shown->str(shown->slices().name[selected])), kernelName);
        QCOMPARE(shown->classOf(selected), SliceClass::Kernel);
        auto* details = window.findChild<DetailsPanel*>();
        QVERIFY(details);
        QCOMPARE(details->slice(), selected);
        QVERIFY(timeline->hasSelectedRange());
        QCOMPARE(timeline->selectedRange().start, rangeStart);
        QCOMPARE(timeline->selectedRange().end, rangeEnd);
        std::uint32_t otherNow = kNoIndex;
        for (std::uint32_t p = 0; p < shown->processes().size(); ++p) {
            if (shown->processes()[p].pid.number == otherPid && p != shown->tracks()[shown->trackOf(selected)].process)
                otherNow = p;
        }
        QVERIFY(otherNow != kNoIndex);
        QVERIFY(timeline->isProcessCollapsed(otherNow));

        QTRY_VERIFY_WITH_TIMEOUT(!controller->isRecording(), 20000);
        QCOMPARE(kernels(window.trace()), std::size_t(250));
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

        // The user zooms into the beginning: later snapshots keep that time range. (The
        // time area narrows when the vertical scroll bar appears, e.g. with the GPU metric
        // tracks of the first report, at any moment: the range stays, the ns per pixel follow.)
        const TimeNs start = window.trace()->startTime();
        timeline->setVisibleRange(start, start + 50000);
        QCOMPARE(viewEnd(timeline), start + 50000);
        const auto before = window.trace();
        QTRY_VERIFY_WITH_TIMEOUT(window.trace() != before && kernels(window.trace()) > kernels(before), 5000);
        QCOMPARE(timeline->timeScale().viewStart(), start);
        QCOMPARE(viewEnd(timeline), start + 50000);

        QTRY_VERIFY_WITH_TIMEOUT(!controller->isRecording(), 20000);
        QCOMPARE(kernels(window.trace()), std::size_t(250));
        QVERIFY(window.windowTitle().contains(QStringLiteral("finished")));
    }
};

QTEST_MAIN(TestRecordingController)
#include "tst_recordingcontroller.moc"
