#pragma once
// Per-stage counters and timers of the injection (collector option stats=1), printed on the
// program's stderr at exit: where a traced program's time goes on our side of CUPTI. Each
// field is written by one thread only (named beside it) and read once at the end.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace ks::injection {

struct StageStats {
    std::atomic<std::uint64_t> completedBytes{0}; // application threads (CUPTI's callback)
    std::atomic<std::uint64_t> flushes{0}; // flush thread
    std::atomic<std::uint64_t> flushNs{0};
    std::atomic<std::uint64_t> forcedFlushNs{0}; // atexit
    std::atomic<std::uint64_t> translateNs{0}; // sender thread
    std::atomic<std::uint64_t> sendNs{0};
    std::atomic<std::uint64_t> sentBytes{0};
    std::atomic<std::uint64_t> writes{0};

    // One line: "pid 12: 30 buffers (240.0 MB) ..., translate 12.3 ms (45 ns/record) ...".
    std::string summary(long pid, std::uint64_t buffers, std::uint64_t records, bool dropped) const;
};

// Adds the nanoseconds since construction to `sum` when it goes out of scope, if `on`.
class StageTimer {
public:
    StageTimer(bool on, std::atomic<std::uint64_t>& sum)
        : m_sum(on ? &sum : nullptr)
        , m_start(on ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point())
    {
    }
    ~StageTimer()
    {
        if (m_sum)
            m_sum->fetch_add(static_cast<std::uint64_t>((std::chrono::steady_clock::now() - m_start).count()),
                             std::memory_order_relaxed);
    }
    StageTimer(const StageTimer&) = delete;
    StageTimer& operator=(const StageTimer&) = delete;

private:
    std::atomic<std::uint64_t>* m_sum;
    std::chrono::steady_clock::time_point m_start;
};

} // namespace ks::injection
