// Live recording of a real CUDA program from the main window (issues 6 and 34): the timeline
// fills in while the program runs, and a kernel shows up soon after it ends. Needs a program
// named by KS_GPU_TARGET (tests/gpu/run-gui.sh sets it up: tests/gpu/steady.cu, or a PyTorch
// training loop); skips, and says so, elsewhere.
//   KS_GPU_ARGS          the program's arguments, space-separated (default "3000": steady's kernels)
//   KS_LIVE_PAST_EVENTS  count updates and kernel ages only from the first snapshot taken when at
//                        least this many slices were recorded (default 0): "past 1M events"
//                        (the live timeline holds the most recent of them: RecordingOptions)
//   KS_LIVE_WINDOW       the slices a live snapshot holds at most (default: RecordingOptions's; 0: all)
//   KS_LIVE_KERNELS      the kernels the finished trace must hold (default 3000 with the default
//                        arguments; unchecked otherwise)
// It prints the figures (updates a second, the newest kernel's age when a snapshot arrives)
// and asserts only loose bounds: the targets are read from its output.
#include "app/mainwindow.h"
#include "app/recordingcontroller.h"

#include <QElapsedTimer>
#include <QMessageBox>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <numeric>

using namespace ks;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What one snapshot brought, seen from the GUI thread when the window adopted it.
struct LiveUpdate {
    const Trace* trace = nullptr;
    double atSeconds = 0; // since the recording started
    std::size_t slices = 0; // recorded (the snapshot may hold the most recent only)
    std::size_t slicesShown = 0;
    double newestKernelAgeMs = 0; // now less the end of the newest kernel in the snapshot
};

} // namespace

class TestLiveGpuRecording : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (qEnvironmentVariableIsEmpty("KS_GPU_TARGET"))
            QSKIP("needs an NVIDIA GPU and a CUDA program in KS_GPU_TARGET (see tests/gpu/run-gui.sh)");
        QCoreApplication::setOrganizationName(QStringLiteral("kinetoscope-tests"));
    }

    void timelineFillsInLive()
    {
        const QString argsText = qEnvironmentVariable("KS_GPU_ARGS", QStringLiteral("3000"));
        std::vector<std::string> args;
        for (const auto& a : argsText.split(QLatin1Char(' '), Qt::SkipEmptyParts))
            args.push_back(a.toStdString());
        const std::size_t pastSlices = qEnvironmentVariableIntValue("KS_LIVE_PAST_EVENTS");
        const int expectedKernels = qEnvironmentVariableIsSet("KS_LIVE_KERNELS")
            ? qEnvironmentVariableIntValue("KS_LIVE_KERNELS")
            : (qEnvironmentVariableIsSet("KS_GPU_ARGS") ? -1 : 3000);

        MainWindow window;
        window.resize(1200, 800);
        window.show();
        auto* controller = window.findChild<RecordingController*>();
        QVERIFY(controller);
        std::vector<LiveUpdate> updates;
        TimeNs newestKernelEnd = 0; // of the snapshots so far
        double scanMs = 0; // the test's own scans of the snapshots, on the GUI thread
        const auto start = std::chrono::steady_clock::now();
        connect(&window, &MainWindow::traceChanged, this, [&](std::shared_ptr<const Trace> t) {
            if (!t || !controller->isRecording())
                return;
            // Whether the snapshot brought a kernel that ended after those seen before: only the
            // newest end matters. This scan runs on the GUI thread too: its time is reported
            // beside the stalls.
            QElapsedTimer scan;
            scan.start();
            TimeNs newestEnd = 0;
            for (SliceId s = 0; s < t->slices().size(); ++s) {
                if (t->classOf(s) == SliceClass::Kernel)
                    newestEnd = std::max(newestEnd, t->slices().end(s));
            }
            const auto window = collector::liveWindowOf(*t);
            const std::size_t recorded = window ? window->slicesRecorded : t->slices().size();
            scanMs += double(scan.nsecsElapsed()) / 1e6;
            if (newestEnd <= newestKernelEnd)
                return;
            newestKernelEnd = newestEnd;
            const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
            updates.push_back({t.get(), secondsSince(start), recorded, t->slices().size(),
                               double(now - (t->baseTimeNs() + newestEnd)) / 1e6});
        });
        // How long the GUI thread is away from its event loop: a 10 ms timer's late ticks.
        QTimer probe;
        probe.setTimerType(Qt::PreciseTimer);
        probe.setInterval(10);
        std::vector<double> stallsMs;
        double longestStallMs = -1, longestStallAt = 0; // when the longest stall ended, since the start
        QElapsedTimer sinceTick;
        connect(&probe, &QTimer::timeout, this, [&] {
            if (sinceTick.isValid()) {
                stallsMs.push_back(double(sinceTick.nsecsElapsed()) / 1e6 - 10.0);
                if (stallsMs.back() >= longestStallMs) {
                    longestStallMs = stallsMs.back();
                    longestStallAt = secondsSince(start);
                }
            }
            sinceTick.start();
        });
        probe.start();
        RecordingOptions options;
        if (qEnvironmentVariableIsSet("KS_LIVE_WINDOW"))
            options.liveWindowSlices = std::size_t(qEnvironmentVariableIntValue("KS_LIVE_WINDOW"));
        controller->startRecording({qEnvironmentVariable("KS_GPU_TARGET").toStdString(), args, {}, {}}, options);
        QVERIFY(controller->isRecording());
        QTRY_VERIFY_WITH_TIMEOUT(!controller->isRecording(), 600000);
        const double seconds = secondsSince(start);
        QString failure;
        for (const auto* box : window.findChildren<QMessageBox*>())
            failure += box->text();
        QVERIFY2(window.trace(), qPrintable(QStringLiteral("the recording failed: %1").arg(failure)));

        std::size_t finalKernels = 0;
        for (SliceId s = 0; s < window.trace()->slices().size(); ++s)
            finalKernels += window.trace()->classOf(s) == SliceClass::Kernel;
        if (expectedKernels >= 0)
            QCOMPARE(finalKernels, std::size_t(expectedKernels));

        // The updates from the first one past the threshold to the last one while recording: the
        // finished trace comes while the controller still counts as recording, and is no update.
        if (!updates.empty() && updates.back().trace == window.trace().get())
            updates.pop_back();
        const auto first =
            std::find_if(updates.begin(), updates.end(), [&](const LiveUpdate& u) { return u.slices >= pastSlices; });
        QVERIFY2(std::distance(first, updates.end()) >= 2,
                 qPrintable(QStringLiteral("fewer than 2 updates past %1 slices (%2 updates in all)")
                                .arg(pastSlices)
                                .arg(updates.size())));
        const double span = updates.back().atSeconds - first->atSeconds;
        const double rate = double(std::distance(first, updates.end()) - 1) / span;
        std::vector<double> ages;
        double longestGap = 0;
        std::size_t mostShown = 0;
        for (auto u = first; u != updates.end(); ++u) {
            ages.push_back(u->newestKernelAgeMs);
            mostShown = std::max(mostShown, u->slicesShown);
            if (u != first)
                longestGap = std::max(longestGap, u->atSeconds - std::prev(u)->atSeconds);
        }
        std::sort(ages.begin(), ages.end());
        const double median = ages[ages.size() / 2];
        const double p90 = ages[ages.size() * 9 / 10];
        probe.stop();
        std::sort(stallsMs.begin(), stallsMs.end());
        const double lateMs = std::accumulate(stallsMs.begin(), stallsMs.end(), 0.0,
                                              [](double sum, double late) { return sum + std::max(0.0, late); });
        if (!stallsMs.empty())
            qInfo("GUI thread: longest stall %.0f ms (ended %.2f s after the start), 99th percentile %.0f ms; its "
                  "10 ms ticks late by %.0f %% of the recording in all (a lower bound of its busy time), this test's "
                  "own scans of the snapshots %.0f %%",
                  stallsMs.back(), longestStallAt, stallsMs[stallsMs.size() * 99 / 100],
                  100.0 * lateMs / (seconds * 1e3), 100.0 * scanMs / (seconds * 1e3));
        qInfo("live: %zu updates with new kernels in %.2f s of recording; past %zu slices (%zu .. %zu slices "
              "recorded, at most %zu in a snapshot, %.2f s): %.1f updates/s, longest gap %.0f ms; newest kernel age "
              "at arrival: median %.0f ms, 90th percentile %.0f ms, max %.0f ms; final trace %zu slices, %zu kernels",
              updates.size(), seconds, pastSlices, first->slices, updates.back().slices, mostShown, span, rate,
              longestGap * 1e3, median, p90, ages.back(), window.trace()->slices().size(), finalKernels);
        QVERIFY2(rate >= 4.0, qPrintable(QString::number(rate)));
        QVERIFY2(median <= 300.0, qPrintable(QString::number(median)));
    }
};

QTEST_MAIN(TestLiveGpuRecording)
#include "tst_livegpurecording.moc"
