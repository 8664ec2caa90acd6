#pragma once
// How long one event-loop iteration keeps the GUI thread busy: its own CPU time between the
// event dispatcher's awake() / aboutToBlock() signals. Unlike wall time (the gap between timer
// ticks), a machine loaded by other processes does not inflate it, so a bound on it holds on
// a busy CI machine too.
#include <QAbstractEventDispatcher>
#include <QCoreApplication>
#include <QObject>
#include <QThread>

#include <algorithm>
#include <ctime>

namespace kstest {

class GuiThreadBusyMeter {
public:
    GuiThreadBusyMeter()
    {
        auto* dispatcher = QAbstractEventDispatcher::instance(QCoreApplication::instance()->thread());
        // The glib dispatcher (Qt's default on Linux) emits aboutToBlock() before it waits and
        // then handles what woke it up within the same call, emitting no awake(); the plain
        // Unix one emits awake() after its wait. Taking either signal as the end of one
        // stretch of work and the start of the next covers both: a wait costs no CPU time.
        const auto boundary = [this] {
            const double now = threadCpuMs();
            m_longestMs = std::max(m_longestMs, now - m_since);
            m_since = now;
            ++m_iterations;
        };
        m_since = threadCpuMs();
        m_awake = QObject::connect(dispatcher, &QAbstractEventDispatcher::awake, boundary);
        m_asleep = QObject::connect(dispatcher, &QAbstractEventDispatcher::aboutToBlock, boundary);
    }
    ~GuiThreadBusyMeter() { stop(); }

    void stop()
    {
        QObject::disconnect(m_awake);
        QObject::disconnect(m_asleep);
    }
    double longestMs() const { return m_longestMs; }
    int iterations() const { return m_iterations; }

private:
    static double threadCpuMs()
    {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
    }

    QMetaObject::Connection m_awake, m_asleep;
    double m_since = 0, m_longestMs = 0;
    int m_iterations = 0;
};

} // namespace kstest
