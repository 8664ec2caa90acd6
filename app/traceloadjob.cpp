#include "app/traceloadjob.h"

#include "core/analysis/workspace.h"
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
        m_progress->cancel();
}

void TraceLoadJob::start(const QStringList& paths)
{
    cancel();
    auto progress = std::make_shared<analysis::MultiLoadProgress>(std::size_t(paths.size()));
    m_progress = progress;
    m_paths = paths;
    m_timer->start();
    std::vector<std::string> files;
    for (const QString& path : paths)
        files.push_back(QFile::encodeName(path).toStdString());
    // The worker only touches its own progress and results; they arrive here on the GUI thread.
    m_jobs->start([progress, files] { return analysis::loadTraceFiles(files, progress.get()); },
                  [this](const std::vector<LoadResult>& results) { finish(results); },
                  [this](const QString& message) { fail(message); }, [progress] { progress->cancel(); });
}

void TraceLoadJob::cancel()
{
    if (!m_progress)
        return;
    m_jobs->cancel(); // stops the loaders; whatever they return now is dropped
    m_progress.reset();
    m_timer->stop();
    Q_EMIT cancelled(m_paths);
}

void TraceLoadJob::pollProgress()
{
    if (!m_progress)
        return;
    quint64 events = 0;
    for (std::size_t i = 0; i < m_progress->fileCount(); ++i)
        events += m_progress->file(i).eventsDone;
    Q_EMIT progressChanged(m_progress->bytesDone(), m_progress->bytesTotal(), events, int(m_progress->filesDone()),
                           int(m_progress->fileCount()));
}

void TraceLoadJob::finish(const std::vector<LoadResult>& results)
{
    m_progress.reset();
    m_timer->stop();
    std::vector<LoadedFile> files;
    for (std::size_t i = 0; i < results.size(); ++i) {
        const LoadResult& r = results[i];
        if (r.cancelled) {
            Q_EMIT cancelled(m_paths);
            return;
        }
        LoadedFile file{m_paths.value(qsizetype(i)), r.trace, {}};
        if (!r.ok())
            file.error = r.fatal ? QString::fromStdString(r.fatal->located()) : tr("unknown error");
        files.push_back(std::move(file));
    }
    Q_EMIT finished(files);
}

void TraceLoadJob::fail(const QString& message)
{
    m_progress.reset();
    m_timer->stop();
    std::vector<LoadedFile> files;
    for (const QString& path : m_paths)
        files.push_back({path, nullptr, message});
    Q_EMIT finished(files);
}

} // namespace ks
