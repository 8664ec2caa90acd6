#pragma once
// Runs one kind of background job at a time, off the GUI thread, on a private QThreadPool
// (the global one is reserved: the raster paint engine waits on it). Starting a job
// supersedes the previous one: its result is dropped and its cancel hook runs, so a
// cancellable job stops early; unless the request is for a newer version of the same input
// (a live recording's next snapshot): then the running job finishes, and the newest request
// follows at once if no job ran in the last kNewerVersionIntervalMs, else on the next beat
// of a process-wide clock (one every kNewerVersionIntervalMs). A job that throws reports a
// failure instead of terminating. Results and failures arrive on the tracker's (GUI) thread.
//
// Trackers may share a pool: the views' analyses of a trace (the tables, the GPU report, the
// insights) run on sharedAnalysisPool().
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QThreadPool>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <exception>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace ks {

// The pool that the views' analyses of a trace share: half the usable cores, at least one
// thread. Each analysis holds scratch while it runs (a trace's nesting, sorted ids), so the
// GUI's peak memory grows with the number running at once; on two cores, running them one
// after the other costs no throughput and keeps the peak near where the GUI settles.
QThreadPool* sharedAnalysisPool();

class JobTracker : public QObject {
    Q_OBJECT
public:
    // A live recording's views re-analyse at most this often, all on the same beat: a
    // snapshot comes ten times a second, and a dozen views analysing each one they got (each
    // building the snapshot's facts again) took the cores that the snapshots themselves need
    // (1.5 timeline updates a second past 1M events on two cores). On a shared beat they
    // analyse the same snapshot, whose facts are built once (facts::sharedTraceFacts).
    static constexpr int kNewerVersionIntervalMs = 1000;
    // Milliseconds to the next beat of the process-wide clock (1..kNewerVersionIntervalMs).
    static int msToNextBeat();

    // Runs jobs on `pool` (shared with other trackers) when given, else on a pool of its own.
    explicit JobTracker(QObject* parent = nullptr, QThreadPool* pool = nullptr);
    // Cancels the current job and waits for this tracker's jobs still queued or running.
    ~JobTracker() override;

    // `job()` runs on the pool; then `onResult(result)` or `onFailure(message)` runs here,
    // unless another start() or cancel() came first. `cancelHook` (optional) asks the job
    // to stop when it is superseded.
    template <class Job, class OnResult>
    void start(Job job, OnResult onResult, std::function<void(const QString&)> onFailure,
               std::function<void()> cancelHook = {})
    {
        using Result = std::invoke_result_t<Job>;
        const quint64 generation = supersede(std::move(cancelHook));
        auto* watcher = new QFutureWatcher<Result>(this);
        connect(watcher, &QFutureWatcherBase::finished, this,
                [this, watcher, generation, onResult = std::move(onResult), onFailure = std::move(onFailure)] {
                    watcher->deleteLater();
                    if (generation != m_generation)
                        return;
                    m_cancelHook = {};
                    m_running = false;
                    m_sinceActive.start();
                    QString error;
                    if (auto result = takeResult(*watcher, error))
                        onResult(std::move(*result));
                    else if (onFailure)
                        onFailure(error);
                    startWaitingRequest();
                });
        m_running = true;
        m_sinceActive.start();
        const QFuture<Result> future =
            QtConcurrent::run(m_pool, [this, generation, job = std::move(job)]() mutable -> Result {
                // Superseded while it waited for a thread: its result would be dropped, so it
                // does not run (a burst of requests costs one job, not one each).
                if constexpr (std::is_default_constructible_v<Result>) {
                    if (generation != m_generation.load())
                        return Result{};
                }
                Result result = job();
                returnFreedMemory();
                return result;
            });
        keepInFlight(QFuture<void>(future));
        watcher->setFuture(future);
    }

    // What start(IfRunning, ...) does with a job still running: supersede it as start() does, or
    // let it finish and deliver its result, then start: at once where no job ran in the last
    // kNewerVersionIntervalMs (a user's change after a recording), else on the next beat
    // (a later request replaces this one while it waits). A view of a live
    // recording asks for a new analysis with every snapshot, ten a second; superseded each time,
    // an analysis that takes longer than that never delivers.
    enum class IfRunning { Supersede, LetFinish };
    static IfRunning letFinishIf(bool newerVersion)
    {
        return newerVersion ? IfRunning::LetFinish : IfRunning::Supersede;
    }
    template <class Job, class OnResult>
    void start(IfRunning ifRunning, Job job, OnResult onResult, std::function<void(const QString&)> onFailure)
    {
        if (ifRunning == IfRunning::Supersede) {
            start(std::move(job), std::move(onResult), std::move(onFailure));
            return;
        }
        m_waitingRequest = [this, job = std::move(job), onResult = std::move(onResult),
                            onFailure = std::move(onFailure)]() mutable {
            start(std::move(job), std::move(onResult), std::move(onFailure));
        };
        if (!m_running)
            startWaitingRequest();
    }

    // Drops the current job's result (and a waiting request) and asks it to stop.
    void cancel() { supersede({}); }

    // The text of the exception a job ended with.
    static QString describeFailure(const std::exception_ptr& failure);

private:
    // Gives the pages the job freed back to the system. Every pool thread allocates from its
    // own malloc arena, and glibc keeps an analysis' freed scratch there: without this the
    // GUI's memory stays at its peak after the analyses are done.
    static void returnFreedMemory();
    quint64 supersede(std::function<void()> cancelHook);
    void keepInFlight(QFuture<void> job);
    // After a job, or a new IfRunning::LetFinish request: the waiting request starts now, or is
    // due on the next beat.
    void startWaitingRequest();
    void onBeat();

    // The job's result, or nothing (and the error) when it threw.
    template <class Result>
    static std::optional<Result> takeResult(QFutureWatcher<Result>& watcher, QString& error)
    {
        try {
            return watcher.result();
        } catch (...) {
            error = describeFailure(std::current_exception());
            return std::nullopt;
        }
    }

    QThreadPool m_ownPool;
    QThreadPool* m_pool; // m_ownPool or a shared one
    std::vector<QFuture<void>> m_inFlight; // this tracker's jobs on m_pool (they read m_generation)
    std::atomic<quint64> m_generation{0}; // read by queued jobs on the pool
    std::function<void()> m_cancelHook;
    bool m_running = false; // a job started and neither delivered nor superseded
    std::function<void()> m_waitingRequest; // IfRunning::LetFinish's, until a beat finds no job running
    QTimer m_beat; // single shot, to the next beat while a request waits
    QElapsedTimer m_sinceActive; // since the last job started or delivered
};

} // namespace ks
