#pragma once
// NVTX ranges and marks recorded by the injection itself instead of CUPTI (collector option
// nvtx=own, the default): PyTorch's emit_nvtx issues one push and one pop per operator, and
// CUPTI's MARKER path cost several microseconds each on the application's threads. Here a call
// costs a timestamp and a copy into the calling thread's own ring (NvtxRing): no lock, no
// allocation after the thread's first call, no system call. Our sender thread drains the rings
// into the same MARKER frames CUPTI's records became (start and end share an id; the text rides
// on the start), so the host needs no change. Rings of threads that exit are freed once drained.
#include "collector/injection/activityapi.h"
#include "collector/injection/nvtxring.h"
#include "collector/injection/torchopnames.h"
#include "collector/injection/torchopsabi.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ks::injection {

// What an NVTX domain handle points to (nvtxDomainCreateA): its name, for the sender thread.
// Never freed: records in flight may name it, and programs create a handful.
struct NvtxDomain {
    std::string name;
};

class NvtxRecorder {
public:
    NvtxRecorder(ActivityApi& api, std::size_t ringBytes);
    NvtxRecorder(const NvtxRecorder&) = delete;
    NvtxRecorder& operator=(const NvtxRecorder&) = delete;

    // Application threads, inside NVTX calls: never throw, never block. `domain` is the NVTX
    // domain handle (nullptr for the default domain).
    void mark(const void* domain, std::string_view text) noexcept;
    std::uint32_t startRange(const void* domain, std::string_view text) noexcept; // nvtxRangeStart: its id
    void endRange(std::uint32_t id) noexcept;
    int push(const void* domain, std::string_view text) noexcept; // the new range's depth (0: outermost)
    int pop(const void* domain) noexcept; // the closed range's depth, -1 when none was open
    // PyTorch operators from the observer library (torchopsabi.h): ranges of the default domain
    // like emit_nvtx's, nested apart from the program's own NVTX ranges. False when not recorded.
    bool beginTorchOp(const KinetoscopeTorchOp& op) noexcept;
    void endTorchOp() noexcept;
    // After a fork in the child, or once detached: every call becomes a no-op.
    void stop() noexcept { m_stopped.store(true, std::memory_order_relaxed); }

    // Sender thread: f(const NvtxRecord&, std::string_view text) for every record so far.
    template <class F>
    std::size_t drain(F&& f);
    // Records lost to full rings (and to threads that could not get one).
    std::uint64_t dropped() const;

private:
    struct ThreadState {
        explicit ThreadState(std::size_t ringBytes)
            : ring(ringBytes)
        {
        }
        NvtxRing ring;
        std::uint64_t threadId = 0;
        std::vector<std::pair<const void*, std::uint32_t>> open; // pushed ranges: domain, id
        TorchOpNames torchOpNames;
        std::vector<std::uint8_t> torchOpPayload; // reused for every operator
    };
    ThreadState* threadState() noexcept;
    bool write(ThreadState& state, std::uint32_t id, std::uint32_t flags, const void* domain,
               std::string_view text) noexcept;
    int popRange(const void* stackDomain, const void* recordDomain) noexcept;

    ActivityApi& m_api;
    const std::size_t m_ringBytes;
    const std::uint64_t m_generation; // tells this recorder's thread states from an earlier one's
    std::atomic<std::uint32_t> m_nextId{1};
    std::atomic<std::uint32_t> m_nextTorchOpName{1};
    std::atomic<bool> m_stopped{false};
    std::atomic<std::uint64_t> m_lost{0}; // records of threads without a ring
    mutable std::mutex m_threadsMutex; // taken once per thread, and by drain()
    std::vector<std::shared_ptr<ThreadState>> m_threads;
    std::uint64_t m_retiredDropped = 0; // drops of freed rings (under m_threadsMutex)
};

template <class F>
std::size_t NvtxRecorder::drain(F&& f)
{
    std::lock_guard lock(m_threadsMutex);
    std::size_t records = 0;
    for (auto it = m_threads.begin(); it != m_threads.end();) {
        ThreadState& state = **it;
        records += state.ring.drain(f);
        if (state.ring.retiredAndEmpty() && it->use_count() == 1) {
            m_retiredDropped += state.ring.dropped();
            it = m_threads.erase(it);
        } else {
            ++it;
        }
    }
    return records;
}

} // namespace ks::injection
