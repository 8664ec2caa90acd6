// Background jobs: a result arrives on the GUI thread, a job that throws reports its
// failure instead of terminating, a superseded job's result is dropped and its cancel hook
// runs, jobs superseded before they start never run, and jobs never run on the global pool (the raster paint engine waits on it).
#include "widgets/jobtracker.h"

#include <QSemaphore>
#include <QTest>
#include <QThread>

#include <atomic>
#include <memory>
#include <stdexcept>

using namespace ks;

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
            [release] {
                release->acquire(); // still running when the second job starts
                return 1;
            },
            [&](int value) { results << value; }, [](const QString&) {}, [cancelled] { *cancelled = true; });
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
                [release, busy] {
                    busy->fetch_add(1);
                    release->acquire();
                    return 0;
                },
                [](int) {}, [](const QString&) {});
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
};

QTEST_MAIN(TestJobTracker)
#include "tst_jobtracker.moc"
