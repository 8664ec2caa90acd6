// The GUI's recording session: snapshots arrive live (at least 4 per second while the
// program streams events), the final trace is complete, and start errors are reported.
#include "app/recordingsession.h"
#include "collector/host/collectorsession.h"

#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <chrono>
#include <stdexcept>

using namespace ks;

namespace {

std::int64_t nowEpochNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::vector<TimeNs> kernelEnds(const Trace& t)
{
    std::vector<TimeNs> ends;
    for (SliceId s = 0; s < t.slices().size(); ++s) {
        if (t.classOf(s) == SliceClass::Kernel)
            ends.push_back(t.slices().end(s));
    }
    std::sort(ends.begin(), ends.end());
    return ends;
}

} // namespace

class TestRecordingSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        qputenv("KINETOSCOPE_INJECTION_LIBRARY", KS_FAKE_TARGET); // only has to exist
        qunsetenv("CUDA_INJECTION64_PATH");
    }

    void snapshotsArriveLive()
    {
        // 15 batches, 100 ms apart: about 1.5 s of streaming.
        RecordingSession session({KS_FAKE_TARGET, {"15"}, {}, {}});
        QSignalSpy snapshots(&session, &RecordingSession::snapshotReady);
        QSignalSpy finished(&session, &RecordingSession::finished);
        std::vector<std::pair<std::int64_t, TimeNs>> arrivals; // (received at, newest kernel end)
        connect(&session, &RecordingSession::snapshotReady, this,
                [&arrivals](std::shared_ptr<const Trace> trace, const QString&) {
                    const auto ends = kernelEnds(*trace);
                    if (!ends.empty())
                        arrivals.emplace_back(nowEpochNs() - trace->baseTimeNs(), ends.back());
                });
        QElapsedTimer clock;
        clock.start();
        session.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        const double seconds = clock.elapsed() / 1000.0;
        // At least 4 updates per second of recording (the first one needs the program up).
        QVERIFY2(snapshots.count() >= int(4 * (seconds - 1.0)),
                 qPrintable(QStringLiteral("%1 snapshots in %2 s").arg(snapshots.count()).arg(seconds)));
        const auto last = snapshots.last().at(0).value<std::shared_ptr<const Trace>>();
        QVERIFY(last);
        QVERIFY(snapshots.last().at(1).toString().contains(QStringLiteral("kernels")));
        const auto final = finished.first().at(0).value<std::shared_ptr<const Trace>>();
        QVERIFY(final);
        std::size_t kernels = 0;
        for (SliceId s = 0; s < final->slices().size(); ++s)
            kernels += final->classOf(s) == SliceClass::Kernel;
        QCOMPARE(kernels, std::size_t(150));
        QVERIFY(last->slices().size() <= final->slices().size());

        // Latency on the host side: from a kernel's end to the first snapshot showing it.
        // (On a GPU the injection library's 100 ms flush period comes on top.)
        const auto ends = kernelEnds(*final);
        TimeNs shown = std::numeric_limits<TimeNs>::min();
        TimeNs worst = 0;
        for (const auto& [receivedAt, newest] : arrivals) {
            const auto firstNew = std::upper_bound(ends.begin(), ends.end(), shown);
            if (firstNew != ends.end() && *firstNew <= newest)
                worst = std::max(worst, receivedAt - *firstNew);
            shown = std::max(shown, newest);
        }
        qInfo("%d snapshots in %.2f s; worst host-side latency %.1f ms", int(snapshots.count()), seconds, worst / 1e6);
        QVERIFY2(worst < 200'000'000, qPrintable(QString::number(worst / 1e6)));
        QVERIFY(finished.first().at(1).toString().contains(QStringLiteral("exited with code 0")));
    }

    // The live flush period joins the options the program would get, and never replaces them.
    void liveOptionsKeepTheUsersOptions()
    {
        qunsetenv("KINETOSCOPE_COLLECTOR_OPTIONS");
        collector::LaunchRequest request{"/bin/true", {}, {}, {}};
        QCOMPARE(liveInjectionOptions(request, ""), std::string("flush_ms=50"));
        QCOMPARE(liveInjectionOptions(request, "buffer_mb=4"), std::string("buffer_mb=4,flush_ms=50"));
        QCOMPARE(liveInjectionOptions(request, "flush_ms=200"), std::string("flush_ms=200"));
        QCOMPARE(liveInjectionOptions(request, "stats=1,flush_ms=100"), std::string("stats=1,flush_ms=100"));
        // Not the live flush's business: a bad list reaches the session, which names it.
        QCOMPARE(liveInjectionOptions(request, "flush_ms=never"), std::string("flush_ms=never"));
        qputenv("KINETOSCOPE_COLLECTOR_OPTIONS", "api=all");
        QCOMPARE(liveInjectionOptions(request, ""), std::string("api=all,flush_ms=50"));
        request.environment.emplace_back("KINETOSCOPE_COLLECTOR_OPTIONS", "kinds=kineto,flush_ms=20");
        QCOMPARE(liveInjectionOptions(request, ""), std::string("kinds=kineto,flush_ms=20"));
        QCOMPARE(liveInjectionOptions(request, "stats=1"), std::string("stats=1,flush_ms=50"));
        qunsetenv("KINETOSCOPE_COLLECTOR_OPTIONS");
    }

    void missingProgramFails()
    {
        RecordingSession session({"/nonexistent/program", {}, {}, {}});
        QSignalSpy failed(&session, &RecordingSession::failed);
        session.start();
        QTRY_COMPARE(failed.count(), 1);
        QVERIFY(failed.first().at(0).toString().contains(QStringLiteral("No such file")));
    }

    // An exception on the recording worker's thread ends the recording with failed().
    void workerExceptionIsReported()
    {
        RecordingSession session(
            {"/bin/true", {}, {}, {}}, nullptr,
            []() -> std::unique_ptr<collector::CollectorSession> { throw std::runtime_error("too many open files"); });
        QSignalSpy failed(&session, &RecordingSession::failed);
        QSignalSpy finished(&session, &RecordingSession::finished);
        session.start();
        QTRY_COMPARE(failed.count(), 1);
        QCOMPARE(failed.first().at(0).toString(), QStringLiteral("Recording failed: too many open files"));
        session.stop(); // ignored: the worker is done
        QTest::qWait(50);
        QCOMPARE(finished.count(), 0);
    }
};

QTEST_MAIN(TestRecordingSession)
#include "tst_recordingsession.moc"
