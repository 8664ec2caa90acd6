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
    return ++m_generation;
}

void JobTracker::startWaitingRequest()
{
    if (const auto request = std::exchange(m_waitingRequest, {}))
        request();
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
