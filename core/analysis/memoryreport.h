#pragma once
// Memory you can act on (profile_memory=True traces): the [memory] events of each device paired
// by address into allocations, each with the innermost op around it on its thread; the
// allocator's allocated and reserved curves with their peak; what is alive at any moment.
// Built from facts::TraceFacts (its MemoryTimeline read the events once) off the GUI thread.
//
// The peak, the event counts and the never-freed counts are the TensorBoard plugin's
// (docs/memory.md): the peak is the first event that reaches the highest "Total Allocated",
// an allocation is an event with Bytes > 0 and pairs with the next free of its address.
#include "core/facts/tracefacts.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks::analysis {

// Bytes beyond this in one event are not a real allocation (a corrupt or hostile trace):
// counted as absurd and left out of the pairing. 2^50 is a petabyte.
inline constexpr std::int64_t kAbsurdAllocationBytes = std::int64_t(1) << 50;

// The name of the op of memory events outside any op (the plugin's).
inline constexpr std::string_view kUnknownOp = "<unknown>";

struct Allocation {
    std::uint32_t allocEvent = 0; // position in DeviceMemory::events
    // Where it ends: its free's position, or that of the next allocation at its address when
    // the free went missing (addressReused); kNoIndex when still alive at the end of the trace.
    std::uint32_t endEvent = kNoIndex;
    bool addressReused = false;
    std::int64_t bytes = 0;
    std::uint64_t address = 0;
    TimeNs time = 0;
    TimeNs endTime = 0; // meaningful when ended
    SliceId op = kNoSlice; // innermost op/range enclosing the allocation on its thread

    bool ended() const { return endEvent != kNoIndex; }
    bool aliveAfter(std::uint32_t position) const
    {
        return allocEvent <= position && (!ended() || endEvent > position);
    }
};

// What the pairing found wrong, per device: reported, never fatal.
struct MemoryAnomalies {
    std::uint64_t unmatchedFrees = 0; // frees of an address with no live allocation
    std::uint64_t reusedAddresses = 0; // allocations at a live address (its free went missing)
    std::uint64_t sizeMismatches = 0; // frees whose size differs from their allocation's
    std::uint64_t negativeTotals = 0; // events with a negative Total Allocated or Total Reserved
    std::uint64_t absurdSizes = 0; // events with |Bytes| >= kAbsurdAllocationBytes
    std::uint64_t withoutAddress = 0; // events without "Addr" (torch < 1.10): not paired

    std::uint64_t total() const
    {
        return unmatchedFrees + reusedAddresses + sizeMismatches + negativeTotals + absurdSizes + withoutAddress;
    }
};

struct DeviceMemory {
    std::string name; // "CPU" or "GPU<id>", as the plugin names them
    bool isHost = false;
    int deviceId = -1;
    std::vector<std::uint32_t> events; // indices into facts.memory.events(), by time
    std::vector<Allocation> allocations; // by allocation time
    // The plugin's peak: the first event reaching the highest Total Allocated (position in
    // events; kNoIndex without totals). peakReserved is the highest Total Reserved.
    std::uint32_t peakEvent = kNoIndex;
    std::int64_t peakAllocated = 0, peakReserved = 0;
    TimeNs peakTime = 0;
    std::uint64_t neverFreed = 0; // the plugin's count: allocations still open at the end
    MemoryAnomalies anomalies;

    // Position of the last event at or before t (kNoIndex when t precedes every event).
    std::uint32_t positionAt(const std::vector<MemoryEvent>& all, TimeNs t) const;
};

struct MemoryReport {
    std::shared_ptr<const facts::TraceFacts> facts;
    std::vector<DeviceMemory> devices; // by name: CPU before GPU0, GPU1, ...
    // Per event of facts.memory.events(): the innermost op/range enclosing it on its thread.
    std::vector<SliceId> opOfEvent;
    std::uint64_t eventsWithoutDevice = 0; // unknown Device Type: on no device

    const std::vector<MemoryEvent>& events() const { return facts->memory.events(); }
    const DeviceMemory* device(std::string_view name) const;
};

MemoryReport makeMemoryReport(std::shared_ptr<const facts::TraceFacts> facts);
// Without owning the facts: the report must not outlive them (a detector's local report).
MemoryReport makeMemoryReport(const facts::TraceFacts& facts);

// Indices into device.allocations of those alive right after the event at `position` (allocated
// at or before it, freed after it), largest first. kNoIndex: none alive.
std::vector<std::uint32_t> liveAllocations(const DeviceMemory& device, std::uint32_t position);
// The same at a time (after every event at or before t).
std::vector<std::uint32_t> liveAllocationsAt(const MemoryReport& report, const DeviceMemory& device, TimeNs t);

// What owns memory events: ops (cpu_op) and ranges (user_annotation: ProfilerStep, Optimizer).
bool isMemoryOwnerClass(SliceClass c);
// The ops and ranges of the thread's main lane holding `time` ([start, end), the plugin's rule),
// outermost first.
void opChainAt(const Trace& trace, std::uint32_t track, TimeNs time, std::vector<SliceId>& chain);
// The python_function frames around `time` on a thread, outermost first (with_stack traces).
std::vector<SliceId> pythonStackAt(const Trace& trace, std::uint32_t track, TimeNs time);
// Whether any thread has such frames (a trace recorded with_stack): stacks to show at all.
bool hasPythonStacks(const Trace& trace);
// The name of the op an allocation is attributed to, kUnknownOp for none.
std::string_view allocationOpName(const Trace& trace, SliceId op);
// The stack of an allocation's event as text, innermost frame first, one per line.
std::string pythonStackText(const MemoryReport& report, const DeviceMemory& device, const Allocation& a);

} // namespace ks::analysis
