#include "app/traceloadjob.h"

#include <QFile>
#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

namespace ks {

TraceLoadJob::TraceLoadJob(QObject* parent)
    : QObject(parent)
    , m_timer(new QTimer(this))
{
    m_timer->setInterval(100);
    connect(m_timer, &QTimer::timeout, this, &TraceLoadJob::pollProgress);
}

TraceLoadJob::~TraceLoadJob()
{
    if (m_progress)
        m_progress->cancelRequested = true;
}

void TraceLoadJob::start(const QString& path)
{
    cancel();
    const quint64 generation = ++m_generation;
    auto progress = std::make_shared<LoadProgress>();
    m_progress = progress;
    m_path = path;
    m_timer->start();
    // The worker only touches its own LoadProgress and result; the watcher lives on this
    // (GUI) thread and delivers the result here by a queued signal.
    auto* watcher = new QFutureWatcher<LoadResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, path] {
        finish(generation, path, watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([progress, path] {
        return loadTraceFile(QFile::encodeName(path).toStdString(), progress.get());
    }));
}

void TraceLoadJob::cancel()
{
    if (!m_progress)
        return;
    m_progress->cancelRequested = true;
    m_progress.reset();
    m_timer->stop();
    ++m_generation; // whatever the old worker returns now is dropped
    Q_EMIT cancelled(m_path);
}

void TraceLoadJob::pollProgress()
{
    if (m_progress)
        Q_EMIT progressChanged(m_progress->bytesDone, m_progress->bytesTotal, m_progress->eventsDone);
}

void TraceLoadJob::finish(quint64 generation, const QString& path, const LoadResult& result)
{
    if (generation != m_generation)
        return;
    m_progress.reset();
    m_timer->stop();
    if (result.ok())
        Q_EMIT loaded(path, result.trace);
    else if (result.cancelled)
        Q_EMIT cancelled(path);
    else
        Q_EMIT failed(path, result.fatal ? QString::fromStdString(result.fatal->located())
                                         : tr("unknown error"));
}

} // namespace ks
