// Background jobs: a result arrives on the GUI thread, a job that throws reports its
// failure instead of terminating, a superseded job's result is dropped and its cancel hook
// runs, and jobs never run on the global pool (the raster paint engine waits on it).
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
};

QTEST_MAIN(TestJobTracker)
#include "tst_jobtracker.moc"
