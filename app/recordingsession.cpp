#include "app/recordingsession.h"

#include "collector/host/collectorsession.h"

#include <QElapsedTimer>
#include <QTimer>

namespace ks {

// Runs on the session's thread; everything it touches is its own.
class RecordingWorker : public QObject {
    Q_OBJECT
public:
    explicit RecordingWorker(collector::LaunchRequest request)
        : m_request(std::move(request))
    {
    }

public Q_SLOTS:
    void start()
    {
        m_session = std::make_unique<collector::CollectorSession>();
        std::string error;
        if (!m_session->start(m_request, error)) {
            m_done = true;
            Q_EMIT failed(QString::fromStdString(error));
            return;
        }
        m_timer = new QTimer(this);
        m_timer->setInterval(RecordingSession::kSnapshotIntervalMs);
        connect(m_timer, &QTimer::timeout, this, &RecordingWorker::tick);
        m_timer->start();
    }

    void stop()
    {
        if (!m_done && m_session)
            finish(tr("Recording stopped; the program keeps running."));
    }

Q_SIGNALS:
    void snapshotReady(std::shared_ptr<const ks::Trace> trace, const QString& status);
    void finished(std::shared_ptr<const ks::Trace> trace, const QString& summary);
    void failed(const QString& message);

private:
    QString statusLine(const collector::SessionStats& s) const
    {
        return tr("Recording %1: %n process(es), %L2 kernels, %L3 copies, %L4 API calls, %L5 dropped", nullptr,
                  s.processes)
            .arg(QString::fromStdString(m_request.program))
            .arg(s.kernels)
            .arg(s.memcpys + s.memsets)
            .arg(s.apiCalls)
            .arg(s.dropped);
    }

    void tick()
    {
        if (!m_targetExit) {
            m_targetExit = m_session->target().poll();
            if (m_targetExit)
                m_drain.start();
        }
        // After the program ended, give its processes up to 3 s to flush and say GOODBYE.
        if (m_targetExit && (m_session->server().openConnections() == 0 || m_drain.elapsed() > 3000)) {
            finish(tr("%1 %2.").arg(QString::fromStdString(m_request.program),
                                    QString::fromStdString(m_targetExit->describe())));
            return;
        }
        const auto stats = m_session->stats();
        if (stats.events() == m_snapshotEvents && stats.processes == m_snapshotProcesses)
            return; // nothing new: keep the view as it is
        m_snapshotEvents = stats.events();
        m_snapshotProcesses = stats.processes;
        Q_EMIT snapshotReady(std::make_shared<const Trace>(m_session->snapshot()), statusLine(stats));
    }

    void finish(const QString& reason)
    {
        m_done = true;
        if (m_timer)
            m_timer->stop();
        m_session->stopReceiving();
        const auto stats = m_session->stats();
        QStringList summary{reason, statusLine(stats)};
        if (stats.processes == 0)
            summary << tr("No process initialised CUDA: nothing was recorded.");
        if (stats.terminatedProcesses > 0)
            summary << tr("%n process(es) crashed or were killed; their last events may be missing.", nullptr,
                          stats.terminatedProcesses);
        for (const auto& e : stats.errors)
            summary << QString::fromStdString(e);
        for (const auto& r : stats.rejections)
            summary << tr("Rejected a connection: %1").arg(QString::fromStdString(r));
        Q_EMIT finished(std::make_shared<const Trace>(m_session->snapshot()), summary.join(QLatin1Char('\n')));
    }

    collector::LaunchRequest m_request;
    std::unique_ptr<collector::CollectorSession> m_session;
    QTimer* m_timer = nullptr;
    std::optional<collector::ExitStatus> m_targetExit;
    QElapsedTimer m_drain;
    std::uint64_t m_snapshotEvents = ~std::uint64_t(0);
    int m_snapshotProcesses = -1;
    bool m_done = false;
};

RecordingSession::RecordingSession(collector::LaunchRequest request, QObject* parent)
    : QObject(parent)
    , m_worker(new RecordingWorker(std::move(request)))
{
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &RecordingWorker::snapshotReady, this, &RecordingSession::snapshotReady);
    connect(m_worker, &RecordingWorker::finished, this, &RecordingSession::finished);
    connect(m_worker, &RecordingWorker::failed, this, &RecordingSession::failed);
    m_thread.setObjectName(QStringLiteral("collector"));
    m_thread.start();
}

RecordingSession::~RecordingSession()
{
    QMetaObject::invokeMethod(m_worker, &RecordingWorker::stop, Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
}

void RecordingSession::start()
{
    QMetaObject::invokeMethod(m_worker, &RecordingWorker::start, Qt::QueuedConnection);
}

void RecordingSession::stop()
{
    QMetaObject::invokeMethod(m_worker, &RecordingWorker::stop, Qt::QueuedConnection);
}

} // namespace ks

#include "recordingsession.moc"
