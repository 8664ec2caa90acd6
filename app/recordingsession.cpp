#include "app/recordingsession.h"

#include "collector/host/collectorsession.h"
#include "collector/protocol/environment.h"
#include "collector/protocol/injectionoptions.h"
#include "widgets/jobtracker.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <cstdlib>

namespace ks {

std::string liveInjectionOptions(const collector::LaunchRequest& request, std::string options)
{
    if (options.empty()) {
        const auto own = std::find_if(request.environment.begin(), request.environment.end(),
                                      [](const auto& kv) { return kv.first == wire::kOptionsEnv; });
        if (own != request.environment.end())
            options = own->second;
        else if (const char* inherited = std::getenv(wire::kOptionsEnv))
            options = inherited;
    }
    // Read by the injection's own parser: flush_ms takes 1 and up, so 0 after it says "not named".
    // Options that do not parse stay as they are, for the session to reject with their text.
    wire::InjectionOptions parsed;
    parsed.flushPeriodMs = 0;
    std::string error;
    if (wire::parseInjectionOptions(options, parsed, error) && parsed.flushPeriodMs == 0)
        options += (options.empty() ? "flush_ms=" : ",flush_ms=") + std::to_string(RecordingSession::kLiveFlushMs);
    return options;
}

// Runs on the session's thread; everything it touches is its own.
class RecordingWorker : public QObject {
    Q_OBJECT
public:
    RecordingWorker(collector::LaunchRequest request, RecordingSession::SessionFactory makeSession,
                    RecordingOptions options)
        : m_request(std::move(request))
        , m_makeSession(std::move(makeSession))
        , m_options(std::move(options))
    {
    }

public Q_SLOTS:
    void start()
    {
        guarded([this] {
            auto sessionOptions = m_options.session;
            sessionOptions.injectionOptions = liveInjectionOptions(m_request, sessionOptions.injectionOptions);
            m_session = m_makeSession ? m_makeSession() : std::make_unique<collector::CollectorSession>(sessionOptions);
            m_live.builder.setWindow(m_options.liveWindowSlices);
            std::string error;
            const auto pytorch = collector::preparePyTorchOps(m_request, m_options.pytorch, m_notes, error);
            // Paused before the launch: pausing once start() returned kept what the program did
            // in between (10 kernels on a loaded machine).
            if (m_options.startPaused)
                m_session->setPaused(true);
            if (!pytorch || !m_session->start(m_request, error)) {
                m_done = true;
                Q_EMIT failed(QString::fromStdString(error));
                return;
            }
            m_timer = new QTimer(this);
            m_timer->setInterval(RecordingSession::kPollMs);
            connect(m_timer, &QTimer::timeout, this, [this] { guarded([this] { tick(); }); });
            m_timer->start();
        });
    }

    void stop()
    {
        guarded([this] {
            if (!m_done && m_session)
                finish(tr("Recording stopped; the program keeps running."));
        });
    }

    void setPaused(bool paused)
    {
        guarded([this, paused] {
            if (!m_done && m_session) {
                m_session->setPaused(paused);
                m_snapshotEvents = ~std::uint64_t(0); // show the change with the next tick
            }
        });
    }

    void setLiveWindow(std::size_t slices)
    {
        guarded([this, slices] {
            m_live.builder.setWindow(slices);
            m_snapshotEvents = ~std::uint64_t(0); // show the change with the next tick
        });
    }

Q_SIGNALS:
    // The moc output included at the end of this file defines these with parameters _t1, _t2.
    // NOLINTBEGIN(readability-inconsistent-declaration-parameter-name)
    void snapshotReady(std::shared_ptr<const ks::Trace> trace, const QString& status);
    void finished(std::shared_ptr<const ks::Trace> trace, const QString& summary);
    void failed(const QString& message);
    // NOLINTEND(readability-inconsistent-declaration-parameter-name)

private:
    // Every slot runs through here: Qt's event loop must not see an exception.
    template <class Body>
    void guarded(Body body)
    {
        try {
            body();
        } catch (...) {
            const QString why = JobTracker::describeFailure(std::current_exception());
            m_done = true;
            if (m_timer)
                m_timer->stop();
            if (m_session)
                m_session->stopReceiving(); // the traced processes detach and run on
            Q_EMIT failed(tr("Recording failed: %1").arg(why));
        }
    }

    QString statusLine(const collector::SessionStats& s) const
    {
        const QString line = tr("Recording %1: %n process(es), %L2 kernels, %L3 copies, %L4 API calls, %L5 dropped",
                                nullptr, s.processes)
                                 .arg(QFileInfo(QString::fromStdString(m_request.program)).fileName())
                                 .arg(s.kernels)
                                 .arg(s.memcpys + s.memsets)
                                 .arg(s.apiCalls)
                                 .arg(s.dropped);
        return m_session && m_session->paused() ? tr("%1 (capture paused)").arg(line) : line;
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
        // Half a poll early: polls come every kPollMs, and a gap read a millisecond short would
        // otherwise wait for the next one.
        if (m_sinceSnapshot.isValid()
            && m_sinceSnapshot.elapsed() < RecordingSession::kMinSnapshotGapMs - RecordingSession::kPollMs / 2)
            return;
        const auto stats = m_session->stats();
        if (stats.events() == m_snapshotEvents && stats.processes == m_snapshotProcesses)
            return; // nothing new: keep the view as it is
        m_sinceSnapshot.start();
        m_snapshotEvents = stats.events();
        m_snapshotProcesses = stats.processes;
        auto trace = std::make_shared<const Trace>(m_session->snapshot(m_live));
        QString status = statusLine(stats);
        if (const auto window = collector::liveWindowOf(*trace))
            status += tr("; the latest %L1 of %L2 events shown").arg(window->slicesShown).arg(window->slicesRecorded);
        Q_EMIT snapshotReady(std::move(trace), status);
    }

    void finish(const QString& reason)
    {
        m_done = true;
        if (m_timer)
            m_timer->stop();
        m_session->stopReceiving();
        const auto stats = m_session->stats();
        QStringList summary{reason, statusLine(stats)};
        for (const auto& note : m_notes)
            summary << QString::fromStdString(note);
        if (stats.processes == 0)
            summary << tr("No process initialised CUDA: nothing was recorded.");
        if (stats.terminatedProcesses > 0)
            summary << tr("%n process(es) crashed or were killed; their last events may be missing.", nullptr,
                          stats.terminatedProcesses);
        for (const auto& e : stats.errors)
            summary << QString::fromStdString(e);
        for (const auto& r : stats.rejections)
            summary << tr("Rejected a connection: %1").arg(QString::fromStdString(r));
        auto processes = m_session->processes();
        const auto spec = m_session->captureSpec();
        const auto capture = m_session->applyCapture(processes);
        if (spec.range != collector::CaptureRange::Everything && !processes.empty()
            && capture.processesWithWindows == 0)
            summary << tr("The capture range %1 never opened (no cudaProfilerStart, or no such NVTX range): "
                          "the trace has no events.")
                           .arg(QString::fromStdString(collector::captureRangeText(spec)));
        Q_EMIT finished(std::make_shared<const Trace>(m_session->traceOf(processes)), summary.join(QLatin1Char('\n')));
    }

    collector::LaunchRequest m_request;
    RecordingSession::SessionFactory m_makeSession;
    RecordingOptions m_options;
    std::vector<std::string> m_notes; // --pytorch messages, for the summary
    std::unique_ptr<collector::CollectorSession> m_session;
    collector::LiveCopy m_live; // what the snapshots have copied so far
    QTimer* m_timer = nullptr;
    std::optional<collector::ExitStatus> m_targetExit;
    QElapsedTimer m_drain;
    QElapsedTimer m_sinceSnapshot; // from the start of the last snapshot's build
    std::uint64_t m_snapshotEvents = ~std::uint64_t(0);
    int m_snapshotProcesses = -1;
    bool m_done = false;
};

RecordingSession::RecordingSession(collector::LaunchRequest request, QObject* parent, SessionFactory makeSession,
                                   RecordingOptions options)
    : QObject(parent)
    , m_worker(new RecordingWorker(std::move(request), std::move(makeSession), std::move(options)))
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

void RecordingSession::start() { QMetaObject::invokeMethod(m_worker, &RecordingWorker::start, Qt::QueuedConnection); }

void RecordingSession::stop() { QMetaObject::invokeMethod(m_worker, &RecordingWorker::stop, Qt::QueuedConnection); }

void RecordingSession::setPaused(bool paused)
{
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, paused] { worker->setPaused(paused); }, Qt::QueuedConnection);
}

void RecordingSession::setLiveWindow(std::size_t slices)
{
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, slices] { worker->setLiveWindow(slices); }, Qt::QueuedConnection);
}

} // namespace ks

#include "recordingsession.moc"
