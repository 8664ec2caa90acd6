#include "app/traceloadjob.h"

#include "widgets/jobtracker.h"

#include <QFile>
#include <QTimer>

namespace ks {

TraceLoadJob::TraceLoadJob(QObject* parent)
    : QObject(parent)
    , m_timer(new QTimer(this))
    , m_jobs(new JobTracker(this))
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
    auto progress = std::make_shared<LoadProgress>();
    m_progress = progress;
    m_path = path;
    m_timer->start();
    // The worker only touches its own LoadProgress and result; the result arrives here on
    // the GUI thread.
    m_jobs->start(
        [progress, path] { return loadTraceFile(QFile::encodeName(path).toStdString(), progress.get()); },
        [this, path](const LoadResult& result) { finish(path, result); },
        [this, path](const QString& message) { fail(path, message); },
        [progress] { progress->cancelRequested = true; });
}

void TraceLoadJob::cancel()
{
    if (!m_progress)
        return;
    m_jobs->cancel(); // stops the loader; whatever it returns now is dropped
    m_progress.reset();
    m_timer->stop();
    Q_EMIT cancelled(m_path);
}

void TraceLoadJob::pollProgress()
{
    if (m_progress)
        Q_EMIT progressChanged(m_progress->bytesDone, m_progress->bytesTotal, m_progress->eventsDone);
}

void TraceLoadJob::finish(const QString& path, const LoadResult& result)
{
    if (result.ok()) {
        m_progress.reset();
        m_timer->stop();
        Q_EMIT loaded(path, result.trace);
    } else if (result.cancelled) {
        m_progress.reset();
        m_timer->stop();
        Q_EMIT cancelled(path);
    } else {
        fail(path, result.fatal ? QString::fromStdString(result.fatal->located()) : tr("unknown error"));
    }
}

void TraceLoadJob::fail(const QString& path, const QString& message)
{
    m_progress.reset();
    m_timer->stop();
    Q_EMIT failed(path, message);
}

} // namespace ks
