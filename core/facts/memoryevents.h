#pragma once
// The allocator events of a profile_memory=True trace ("[memory]" instants): when, and how many
// bytes were allocated (negative: freed) on the host or on a device. The bytes are only in each
// event's text, read back from the source once per trace (facts::TraceFacts keeps them).
#include "core/model/trace.h"

#include <cstdint>
#include <vector>

namespace ks {

// Byte counts add and subtract modulo 2^64: a trace's "Bytes" can be anything up to the 64-bit
// limits, and a sum of them overflowing is undefined in signed arithmetic. Running sums and
// their differences stay exact wherever the true result fits in 64 bits.
constexpr std::int64_t addBytes(std::int64_t a, std::int64_t b)
{
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
constexpr std::int64_t subtractBytes(std::int64_t a, std::int64_t b)
{
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}

struct MemoryBytes {
    std::int64_t cpu = 0, device = 0;

    MemoryBytes& operator+=(const MemoryBytes& o)
    {
        cpu = addBytes(cpu, o.cpu);
        device = addBytes(device, o.device);
        return *this;
    }
    MemoryBytes operator-(const MemoryBytes& o) const
    {
        return {subtractBytes(cpu, o.cpu), subtractBytes(device, o.device)};
    }
};

// Every [memory] instant of the trace, by time (ties in the model's order), as times and running sums:
// 24 bytes per event, and the bytes inside any time range in two binary searches.
class MemoryTimeline {
public:
    MemoryTimeline() = default;
    explicit MemoryTimeline(const Trace& trace);

    std::size_t size() const { return m_times.size(); }
    bool empty() const { return m_times.empty(); }
    TimeNs time(std::size_t i) const { return m_times[i]; }
    MemoryBytes bytes(std::size_t i) const { return m_before[i + 1] - m_before[i]; }
    // Bytes of the events at times in [start, end].
    MemoryBytes within(TimeNs start, TimeNs end) const;

private:
    std::vector<TimeNs> m_times;
    std::vector<MemoryBytes> m_before; // bytes of the events before i; one more than the events
};

} // namespace ks
