#include "widgets/jobtracker.h"

#include "core/loading/loader.h"

#include <QUnhandledException>

#include <algorithm>
#include <stdexcept>
#include <utility>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace ks {

QThreadPool* sharedAnalysisPool()
{
    static QThreadPool* const pool = [] {
        auto* shared = new QThreadPool; // for the whole process: any window's views may use it
        shared->setMaxThreadCount(static_cast<int>(std::max(1U, usableCores() / 2)));
        return shared;
    }();
    return pool;
}

JobTracker::JobTracker(QObject* parent, QThreadPool* pool)
    : QObject(parent)
    , m_pool(pool ? pool : &m_ownPool)
{
    m_beat.setSingleShot(true);
    m_beat.setTimerType(Qt::PreciseTimer); // a coarse timer may fire early, before the beat
    connect(&m_beat, &QTimer::timeout, this, &JobTracker::onBeat);
}

JobTracker::~JobTracker()
{
    cancel(); // a superseded job that has not started returns at once
    for (QFuture<void>& job : m_inFlight) {
        try {
            job.waitForFinished();
        } catch (...) { // rethrown from the job: its watcher has reported (or dropped) the failure
        }
    }
}

void JobTracker::keepInFlight(QFuture<void> job)
{
    std::erase_if(m_inFlight, [](const QFuture<void>& f) { return f.isFinished(); });
    m_inFlight.push_back(std::move(job));
}

quint64 JobTracker::supersede(std::function<void()> cancelHook)
{
    if (m_cancelHook)
        m_cancelHook();
    m_cancelHook = std::move(cancelHook);
    m_running = false;
    m_waitingRequest = {};
    m_beat.stop();
    return ++m_generation;
}

int JobTracker::msToNextBeat()
{
    static const QElapsedTimer clock = [] {
        QElapsedTimer started;
        started.start();
        return started;
    }();
    return int(kNewerVersionIntervalMs - clock.elapsed() % kNewerVersionIntervalMs);
}

void JobTracker::startWaitingRequest()
{
    if (!m_waitingRequest || m_running || m_beat.isActive())
        return;
    if (m_sinceActive.isValid() && m_sinceActive.elapsed() < kNewerVersionIntervalMs)
        m_beat.start(msToNextBeat());
    else
        std::exchange(m_waitingRequest, {})(); // nothing ran lately: a user's change, say
}

void JobTracker::onBeat()
{
    if (m_waitingRequest && !m_running)
        std::exchange(m_waitingRequest, {})();
}

void JobTracker::returnFreedMemory()
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

QString JobTracker::describeFailure(const std::exception_ptr& failure)
{
    try {
        std::rethrow_exception(failure);
    } catch (const QUnhandledException& wrapped) {
        // QtConcurrent wraps what is not a QException; the job's own exception is inside.
        if (wrapped.exception())
            return describeFailure(wrapped.exception());
        return tr("the background job failed");
    } catch (const std::bad_alloc&) {
        return tr("out of memory");
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    } catch (...) {
        return tr("the background job failed");
    }
}

} // namespace ks
