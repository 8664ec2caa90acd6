#pragma once
// Completed CUPTI buffers waiting for our sender thread. push() runs inside CUPTI's buffer
// callback on application threads, so nothing here allocates after construction: a ring
// sized for every buffer the pool can hand out. A buffer is queued at most once between its
// acquire() and release(), so the ring cannot fill up while the pool keeps its cap.
// Not synchronised: the owner calls it under its own lock.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ks::injection {

struct CompletedBuffer {
    std::uint8_t* buffer = nullptr;
    std::size_t validBytes = 0;
};

class BufferQueue {
public:
    explicit BufferQueue(std::size_t capacity);

    // False (and nothing queued) when full.
    bool push(const CompletedBuffer& completed) noexcept;
    // False when empty.
    bool pop(CompletedBuffer& completed) noexcept;
    bool empty() const noexcept { return m_size == 0; }
    std::size_t size() const noexcept { return m_size; }
    std::size_t capacity() const noexcept { return m_slots.size(); }

private:
    std::vector<CompletedBuffer> m_slots;
    std::size_t m_head = 0; // oldest entry
    std::size_t m_size = 0;
};

} // namespace ks::injection
