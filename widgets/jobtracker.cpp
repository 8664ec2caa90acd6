#include "widgets/jobtracker.h"

#include <QUnhandledException>

#include <stdexcept>
#include <utility>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace ks {

JobTracker::JobTracker(QObject* parent)
    : QObject(parent)
{
}

JobTracker::~JobTracker()
{
    cancel();
    m_pool.waitForDone();
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
