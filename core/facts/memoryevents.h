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

// One [memory] instant's args (kineto's allocator record): the memory analysis pairs them by
// device and address into allocations and draws the allocator's totals.
struct MemoryEvent {
    TimeNs time = 0;
    std::uint32_t instant = 0; // index in trace.instants() (its thread: the allocating op's)
    std::int16_t deviceType = -1; // c10::DeviceType; -1 when missing
    std::int16_t deviceId = -1; // "Device Id" (-1 on the host)
    bool hasAddress = false; // "Addr" (torch >= 1.10)
    bool hasTotals = false; // "Total Allocated" and "Total Reserved"
    std::int64_t bytes = 0; // > 0 allocated, < 0 freed
    std::uint64_t address = 0;
    std::int64_t totalAllocated = 0, totalReserved = 0; // the allocator's totals after the event
};

// c10::DeviceType: CPU 0, MKLDNN 2, IDEEP 5 count as host memory; CUDA 1, HIP 6, PrivateUse1 20
// as device memory; anything else as neither.
bool isHostMemoryType(int deviceType);
bool isDeviceMemoryType(int deviceType);

// Every [memory] instant of the trace, by time (ties in the model's order), as times and running sums:
// 24 bytes per event, and the bytes inside any time range in two binary searches. The events'
// records (events()) are kept beside them, 56 bytes each.
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
    // The events' records, in the same order as time(i).
    const std::vector<MemoryEvent>& events() const { return m_events; }

private:
    std::vector<TimeNs> m_times;
    std::vector<MemoryBytes> m_before; // bytes of the events before i; one more than the events
    std::vector<MemoryEvent> m_events;
};

} // namespace ks
