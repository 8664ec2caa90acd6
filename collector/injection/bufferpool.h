#pragma once
// Activity buffers for CUPTI. acquire() runs on application threads (CUDA 13 hands out
// per-thread buffers), so it never blocks for long and never zeroes memory there: fresh
// buffers come from calloc (pages the kernel zeroes lazily) and used ones are zeroed by
// our sender thread before they go back. At the cap it returns nullptr, and CUPTI counts
// the records it had to drop (safe since CUPTI v27). Both lists are reserved up front, so
// acquire() and release() never allocate.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace ks::injection {

class BufferPool {
public:
    BufferPool(std::size_t bufferBytes, std::size_t maxBuffers);
    ~BufferPool();
    BufferPool(const BufferPool&) = delete;
    BufferPool& operator=(const BufferPool&) = delete;

    // nullptr at the cap or when no memory is left; never throws (CUPTI calls it from C).
    std::uint8_t* acquire() noexcept;
    // `usedBytes` of the buffer are zeroed here, on the caller's (our) thread.
    void release(std::uint8_t* buffer, std::size_t usedBytes);

    std::size_t bufferBytes() const { return m_bufferBytes; }
    std::size_t maxBuffers() const { return m_maxBuffers; }
    std::uint64_t requested() const { return m_requested.load(std::memory_order_relaxed); }
    std::uint64_t refused() const { return m_refused.load(std::memory_order_relaxed); }

private:
    const std::size_t m_bufferBytes;
    const std::size_t m_maxBuffers;
    std::mutex m_mutex; // guards m_free and m_all
    std::vector<std::uint8_t*> m_free;
    std::vector<std::uint8_t*> m_all;
    std::atomic<std::uint64_t> m_requested{0};
    std::atomic<std::uint64_t> m_refused{0};
};

} // namespace ks::injection
