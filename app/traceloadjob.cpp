#include "app/traceloadjob.h"

#include <QFile>
#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

namespace ks {

struct TraceLoadJob::Batch {
    explicit Batch(std::size_t files)
        : progress(new LoadProgress[files])
        , results(files)
    {
    }
    std::unique_ptr<LoadProgress[]> progress; // one per file, polled by the GUI thread
    std::vector<LoadResult> results;          // GUI thread only
    std::size_t remaining = 0;                // GUI thread only
};

TraceLoadJob::TraceLoadJob(QObject* parent)
    : QObject(parent)
    , m_timer(new QTimer(this))
{
    m_pool.setMaxThreadCount(std::max(1, QThread::idealThreadCount()));
    m_timer->setInterval(100);
    connect(m_timer, &QTimer::timeout, this, &TraceLoadJob::pollProgress);
}

TraceLoadJob::~TraceLoadJob()
{
    cancel();
    m_pool.waitForDone();
}

void TraceLoadJob::start(const QStringList& paths)
{
    cancel();
    const quint64 generation = ++m_generation;
    auto batch = std::make_shared<Batch>(std::size_t(paths.size()));
    batch->remaining = std::size_t(paths.size());
    m_batch = batch;
    m_paths = paths;
    m_timer->start();
    for (qsizetype i = 0; i < paths.size(); ++i) {
        // The worker only touches its own LoadProgress and result; the watcher lives on
        // this (GUI) thread and delivers the result here by a queued signal.
        auto* watcher = new QFutureWatcher<LoadResult>(this);
        const auto index = std::size_t(i);
        connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, index] {
            fileDone(generation, index, watcher->result());
            watcher->deleteLater();
        });
        LoadProgress* progress = &batch->progress[index];
        const std::string path = QFile::encodeName(paths[i]).toStdString();
        watcher->setFuture(QtConcurrent::run(&m_pool, [batch, progress, path] {
            if (progress->cancelRequested)
                return LoadResult{nullptr, std::nullopt, true};
            return loadTraceFile(path, progress);
        }));
    }
    if (paths.isEmpty())
        QTimer::singleShot(0, this, [this, generation] { fileDone(generation, 0, {}); });
}

void TraceLoadJob::cancel()
{
    if (!m_batch)
        return;
    for (std::size_t i = 0; i < m_batch->results.size(); ++i)
        m_batch->progress[i].cancelRequested = true;
    m_batch.reset();
    m_timer->stop();
    ++m_generation; // whatever the old workers return now is dropped
    Q_EMIT cancelled(m_paths);
}

void TraceLoadJob::pollProgress()
{
    if (!m_batch)
        return;
    quint64 done = 0, total = 0, events = 0;
    for (std::size_t i = 0; i < m_batch->results.size(); ++i) {
        done += m_batch->progress[i].bytesDone;
        total += m_batch->progress[i].bytesTotal;
        events += m_batch->progress[i].eventsDone;
    }
    const auto files = int(m_batch->results.size());
    Q_EMIT progressChanged(done, total, events, files - int(m_batch->remaining), files);
}

void TraceLoadJob::fileDone(quint64 generation, std::size_t index, LoadResult result)
{
    if (generation != m_generation || !m_batch)
        return;
    if (index < m_batch->results.size()) {
        m_batch->results[index] = std::move(result);
        --m_batch->remaining;
    }
    if (m_batch->remaining > 0)
        return;
    const std::shared_ptr<Batch> batch = std::move(m_batch);
    m_timer->stop();
    std::vector<LoadedFile> files;
    bool anyCancelled = false;
    for (std::size_t i = 0; i < batch->results.size(); ++i) {
        const LoadResult& r = batch->results[i];
        anyCancelled = anyCancelled || r.cancelled;
        LoadedFile file{m_paths[qsizetype(i)], r.trace, {}};
        if (!r.ok())
            file.error = r.fatal ? QString::fromStdString(r.fatal->located()) : tr("unknown error");
        files.push_back(std::move(file));
    }
    if (anyCancelled)
        Q_EMIT cancelled(m_paths);
    else
        Q_EMIT finished(files);
}

} // namespace ks
