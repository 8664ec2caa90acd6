// Background jobs: a result arrives on the GUI thread, a job that throws reports its
// failure instead of terminating, a superseded job's result is dropped and its cancel hook
// runs, jobs superseded before they start never run, and jobs never run on the global pool
// (the raster paint engine waits on it). A request for a newer version of the input
// (IfRunning::LetFinish) lets the running job deliver, and only the newest of such requests
// runs after it: at once after a quiet second, else on the next beat of a process-wide
// one-second clock (a live recording's views re-analyse together, once a second). Trackers
// that share a pool take turns on its threads, and one destroyed with a job still queued
// there waits for it.
#include "widgets/jobtracker.h"

#include <QElapsedTimer>
#include <QSemaphore>
#include <QTest>
#include <QThread>
#include <QThreadPool>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <stdexcept>

using namespace ks;

namespace {

// A job that counts itself in `started` (if given), holds its thread until `gate` (if given) is
// released, then returns `value`: still running when the next request comes.
std::function<int()> gatedJob(int value, std::shared_ptr<QSemaphore> gate,
                              std::shared_ptr<std::atomic<int>> started = nullptr)
{
    return [value, gate = std::move(gate), started = std::move(started)] {
        if (started)
            started->fetch_add(1);
        if (gate)
            gate->acquire();
        return value;
    };
}

} // namespace

class TestJobTracker : public QObject {
    Q_OBJECT
private slots:
    void resultArrivesOnTheTrackersThread()
    {
        JobTracker tracker;
        int result = 0;
        QThread* resultThread = nullptr;
        bool onGlobalPool = true;
        tracker.start(
            [&onGlobalPool] {
                onGlobalPool = QThreadPool::globalInstance()->activeThreadCount() > 0;
                return 42;
            },
            [&](int value) {
                result = value;
                resultThread = QThread::currentThread();
            },
            [](const QString&) {});
        QTRY_COMPARE(result, 42);
        QCOMPARE(resultThread, QThread::currentThread());
        QVERIFY(!onGlobalPool);
    }

    void failedJobIsReported()
    {
        JobTracker tracker;
        QString failure;
        bool gotResult = false;
        tracker.start([]() -> int { throw std::runtime_error("trace file vanished"); }, [&](int) { gotResult = true; },
                      [&](const QString& error) { failure = error; });
        QTRY_COMPARE(failure, QStringLiteral("trace file vanished"));
        QVERIFY(!gotResult);
    }

    void supersededJobIsCancelledAndDropped()
    {
        JobTracker tracker;
        auto release = std::make_shared<QSemaphore>();
        auto cancelled = std::make_shared<std::atomic<bool>>(false);
        QList<int> results;
        tracker.start(
            gatedJob(1, release), [&](int value) { results << value; }, [](const QString&) {},
            [cancelled] { *cancelled = true; });
        tracker.start([] { return 2; }, [&](int value) { results << value; }, [](const QString&) {});
        QVERIFY(cancelled->load());
        QTRY_COMPARE(results, QList<int>{2});
        release->release();
        QTest::qWait(50);
        QCOMPARE(results, QList<int>{2}); // the first job's late result was dropped
    }

    // Jobs superseded while they wait for a thread never run: only the latest request does.
    void jobsSupersededWhileQueuedDoNotRun()
    {
        JobTracker tracker;
        auto release = std::make_shared<QSemaphore>();
        const int threads = QThread::idealThreadCount(); // the tracker's pool size
        auto busy = std::make_shared<std::atomic<int>>(0);
        for (int i = 0; i < threads; ++i) { // every thread busy (each running before the next is asked for)
            tracker.start(
                gatedJob(0, release, busy), [](int) {}, [](const QString&) {});
            QTRY_COMPARE(busy->load(), i + 1);
        }
        auto ran = std::make_shared<std::atomic<int>>(0);
        QList<int> results;
        for (int value = 1; value <= 3; ++value) {
            tracker.start(
                [ran, value] {
                    ran->fetch_add(1);
                    return value;
                },
                [&](int v) { results << v; }, [](const QString&) {});
        }
        release->release(threads);
        QTRY_COMPARE(results, QList<int>{3});
        QTest::qWait(50);
        QCOMPARE(ran->load(), 1); // jobs 1 and 2 were skipped
    }

    void newerVersionLetsTheRunningJobFinish()
    {
        JobTracker tracker;
        auto release = std::make_shared<QSemaphore>();
        auto ran = std::make_shared<std::atomic<int>>(0);
        QList<int> results;
        const auto onResult = [&](int value) { results << value; };
        tracker.start(gatedJob(1, release, ran), onResult, [](const QString&) {});
        QTRY_COMPARE(ran->load(), 1);
        tracker.start(JobTracker::IfRunning::LetFinish, gatedJob(2, nullptr, ran), onResult, [](const QString&) {});
        tracker.start(JobTracker::IfRunning::LetFinish, gatedJob(3, nullptr, ran), onResult, [](const QString&) {});
        QTest::qWait(50);
        QCOMPARE(ran->load(), 1); // the newer requests wait for the running job
        release->release();
        QTRY_COMPARE(results, (QList<int>{1, 3})); // its result, then the newest request's
        QTest::qWait(50);
        QCOMPARE(ran->load(), 2); // request 2 was replaced while it waited
        // Job 3 just delivered: a newer version waits for the next beat.
        tracker.start(JobTracker::IfRunning::LetFinish, gatedJob(4, nullptr, ran), onResult, [](const QString&) {});
        QTRY_COMPARE(results, (QList<int>{1, 3, 4}));
    }

    void aPlainStartDropsTheWaitingRequest()
    {
        JobTracker tracker;
        auto release = std::make_shared<QSemaphore>();
        auto started = std::make_shared<std::atomic<int>>(0);
        QList<int> results;
        const auto onResult = [&](int value) { results << value; };
        tracker.start(gatedJob(1, release, started), onResult, [](const QString&) {});
        QTRY_COMPARE(started->load(), 1);
        tracker.start(JobTracker::IfRunning::LetFinish, gatedJob(2, nullptr), onResult, [](const QString&) {});
        tracker.start(gatedJob(3, nullptr), onResult, [](const QString&) {}); // another input
        QTRY_COMPARE(results, QList<int>{3});
        release->release();
        QTest::qWait(50);
        QCOMPARE(results, QList<int>{3}); // job 1 was superseded and request 2 dropped
    }

    // Live views re-analyse on the beats of one clock: requests made apart, by trackers that
    // ran a job lately, start together (on the same snapshot) once the beat comes.
    void newerVersionsOfSeveralTrackersStartOnTheSameBeat()
    {
        QTRY_VERIFY(JobTracker::msToNextBeat() > JobTracker::kNewerVersionIntervalMs * 6 / 10);
        QElapsedTimer clock;
        clock.start();
        const qint64 beatAt = clock.elapsed() + JobTracker::msToNextBeat();
        JobTracker first, second;
        QList<int> results;
        const auto onResult = [&](int value) { results << value; };
        first.start(gatedJob(1, nullptr), onResult, [](const QString&) {}); // a snapshot's analysis
        second.start(gatedJob(2, nullptr), onResult, [](const QString&) {});
        QTRY_COMPARE(results.size(), 2);
        std::atomic<qint64> firstStarted{-1}, secondStarted{-1}; // set on the pool's threads
        const auto startedAt = [&clock](std::atomic<qint64>& at) {
            return [&clock, &at] {
                at = clock.elapsed();
                return 3;
            };
        };
        first.start(JobTracker::IfRunning::LetFinish, startedAt(firstStarted), onResult, [](const QString&) {});
        QTest::qWait(20);
        second.start(JobTracker::IfRunning::LetFinish, startedAt(secondStarted), onResult, [](const QString&) {});
        QTRY_VERIFY(firstStarted >= 0 && secondStarted >= 0);
        QVERIFY2(firstStarted >= beatAt - 5,
                 qPrintable(QStringLiteral("%1 < %2").arg(firstStarted.load()).arg(beatAt)));
        QVERIFY2(std::abs(secondStarted - firstStarted) < 100,
                 qPrintable(QStringLiteral("%1 vs %2").arg(firstStarted.load()).arg(secondStarted.load())));
    }

    // A newer version where no job ran for a while (a user's change after a recording) does
    // not wait for the beat.
    void aNewerVersionAfterAQuietIntervalStartsAtOnce()
    {
        JobTracker tracker;
        QList<int> results;
        const auto onResult = [&](int value) { results << value; };
        tracker.start(gatedJob(1, nullptr), onResult, [](const QString&) {});
        QTRY_COMPARE(results, QList<int>{1});
        QTest::qWait(JobTracker::kNewerVersionIntervalMs + 100);
        QTRY_VERIFY(JobTracker::msToNextBeat() > JobTracker::kNewerVersionIntervalMs * 7 / 10);
        QElapsedTimer sinceRequest;
        sinceRequest.start();
        tracker.start(JobTracker::IfRunning::LetFinish, gatedJob(2, nullptr), onResult, [](const QString&) {});
        QTRY_COMPARE(results, (QList<int>{1, 2}));
        QVERIFY2(sinceRequest.elapsed() < JobTracker::kNewerVersionIntervalMs * 4 / 10,
                 qPrintable(QString::number(sinceRequest.elapsed())));
    }

    // A request waiting for its beat and then cancelled never runs.
    void aCancelledWaitingRequestNeverRuns()
    {
        JobTracker tracker;
        auto ran = std::make_shared<std::atomic<int>>(0);
        QList<int> results;
        const auto onResult = [&](int value) { results << value; };
        tracker.start(gatedJob(1, nullptr, ran), onResult, [](const QString&) {});
        QTRY_COMPARE(results, QList<int>{1});
        tracker.start(JobTracker::IfRunning::LetFinish, gatedJob(2, nullptr, ran), onResult, [](const QString&) {});
        tracker.cancel();
        QTest::qWait(JobTracker::msToNextBeat() + 100);
        QCOMPARE(ran->load(), 1);
        QCOMPARE(results, QList<int>{1});
    }

    // Two trackers on a one-thread pool: the second's job runs only after the first's, and both
    // deliver (the views' analyses share such a pool, so their scratch memory never adds up).
    void trackersSharingAPoolTakeTurns()
    {
        QThreadPool pool;
        pool.setMaxThreadCount(1);
        JobTracker first(nullptr, &pool), second(nullptr, &pool);
        auto release = std::make_shared<QSemaphore>();
        auto started = std::make_shared<std::atomic<int>>(0);
        QList<int> results;
        const auto onResult = [&](int value) { results << value; };
        first.start(gatedJob(1, release, started), onResult, [](const QString&) {});
        second.start(gatedJob(2, nullptr, started), onResult, [](const QString&) {});
        QTRY_COMPARE(started->load(), 1);
        QTest::qWait(50);
        QCOMPARE(started->load(), 1); // the second waits for the pool's only thread
        release->release();
        QTRY_COMPARE(results, (QList<int>{1, 2}));
    }

    // A tracker destroyed while its job still waits on a shared pool behind another tracker's
    // does not leave it queued (the job reads the tracker); superseded, the job does not run.
    void destroyedTrackerWaitsForItsQueuedJob()
    {
        QThreadPool pool;
        pool.setMaxThreadCount(1);
        JobTracker busy(nullptr, &pool);
        auto release = std::make_shared<QSemaphore>();
        auto started = std::make_shared<std::atomic<int>>(0);
        busy.start(
            gatedJob(1, release, started), [](int) {}, [](const QString&) {});
        QTRY_COMPARE(started->load(), 1);
        auto ran = std::make_shared<std::atomic<int>>(0);
        {
            JobTracker queued(nullptr, &pool);
            queued.start(
                gatedJob(2, nullptr, ran), [](int) {}, [](const QString&) {});
        }
        release->release();
        QVERIFY(pool.waitForDone(5000));
        QCOMPARE(ran->load(), 0); // cancelled by the destructor: it returned without running
    }
};

QTEST_MAIN(TestJobTracker)
#include "tst_jobtracker.moc"
