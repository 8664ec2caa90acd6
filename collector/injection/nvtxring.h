#pragma once
// One thread's NVTX records on their way to our sender thread: a single-producer,
// single-consumer byte ring. The producer (an application thread inside an NVTX call) never
// blocks, allocates or makes a system call: it copies the record in and publishes it with one
// release store; when the ring is full the record is dropped and counted. The consumer (our
// sender thread) reads what was published and frees the space with another release store.
// Records are 8-byte aligned and never wrap: a skip record fills the end of the ring instead.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace ks::injection {

struct NvtxRecord {
    enum Flags : std::uint32_t {
        Instant = 1, // these three as wire::Marker's
        Start = 2,
        End = 4,
        TorchOp = 8, // a Start whose text is a TorchOpPayload (an operator from the PyTorch observer)
    };
    std::int64_t time = 0;
    std::uint32_t id = 0;
    std::uint32_t flags = 0;
    const void* domain = nullptr; // the NVTX domain handle; nullptr: the default domain
    std::uint64_t threadId = 0;
};

class NvtxRing {
public:
    // `bytes` is rounded down to a multiple of 8.
    explicit NvtxRing(std::size_t bytes);

    // Producer. `text` is copied (truncated to kMaxText bytes). False (and counted) when full.
    bool write(const NvtxRecord& record, std::string_view text) noexcept;
    // Consumer: calls f(const NvtxRecord&, std::string_view text) for every published record.
    template <class F>
    std::size_t drain(F&& f);

    std::uint64_t dropped() const { return m_dropped.load(std::memory_order_relaxed); }
    // Producer gone (thread exited): the consumer frees the ring once it is drained.
    void retire() { m_retired.store(true, std::memory_order_release); }
    bool retiredAndEmpty() const
    {
        return m_retired.load(std::memory_order_acquire)
            && m_head.load(std::memory_order_acquire) == m_tail.load(std::memory_order_relaxed);
    }

    static constexpr std::size_t kMaxText = 16 * 1024;

private:
    struct Header {
        std::uint32_t bytes = 0; // the whole record, padding included
        std::uint32_t textBytes = 0;
        NvtxRecord record;
    };
    static_assert(sizeof(Header) % 8 == 0);
    static constexpr std::uint32_t kSkip = 0xffffffffu; // textBytes of a skip record

    const std::size_t m_capacity;
    std::unique_ptr<std::uint8_t[]> m_bytes;
    std::atomic<std::uint64_t> m_head{0}; // written by the producer
    std::atomic<std::uint64_t> m_tail{0}; // written by the consumer
    std::atomic<std::uint64_t> m_dropped{0};
    std::atomic<bool> m_retired{false};
};

template <class F>
std::size_t NvtxRing::drain(F&& f)
{
    std::uint64_t tail = m_tail.load(std::memory_order_relaxed);
    const std::uint64_t head = m_head.load(std::memory_order_acquire);
    std::size_t records = 0;
    while (tail < head) {
        const std::uint8_t* at = m_bytes.get() + tail % m_capacity;
        std::uint32_t sizes[2]; // Header::bytes and ::textBytes: all a skip record holds
        __builtin_memcpy(sizes, at, sizeof sizes);
        if (sizes[1] != kSkip) {
            Header header;
            __builtin_memcpy(&header, at, sizeof header);
            f(header.record, std::string_view(reinterpret_cast<const char*>(at + sizeof header), header.textBytes));
            ++records;
        }
        tail += sizes[0];
    }
    m_tail.store(tail, std::memory_order_release);
    return records;
}

} // namespace ks::injection
