#pragma once
// The allocator events of a profile_memory=True trace ("[memory]" instants): when, and how many
// bytes were allocated (negative: freed) on the host or on a device. The bytes are only in each
// event's text, read back from the source.
#include "core/model/trace.h"

#include <vector>

namespace ks {

struct MemoryBytes {
    std::int64_t cpu = 0, device = 0;

    MemoryBytes& operator+=(const MemoryBytes& o)
    {
        cpu += o.cpu;
        device += o.device;
        return *this;
    }
};

struct MemoryEvent {
    TimeNs time = 0;
    MemoryBytes bytes;
};

// Every [memory] instant of the trace, by time (ties in file order).
std::vector<MemoryEvent> readMemoryEvents(const Trace& trace);

} // namespace ks
