// `kinetoscope-cli memory --json` and the Python module's memory().
#include "core/analysis/memoryjson.h"

namespace ks::analysis {

nlohmann::json memoryReportToJson(const MemoryReport& report, const std::vector<OperatorMemoryTable>& tables)
{
    const Trace& trace = *report.facts->trace;
    const TimeNs origin = trace.startTime();
    nlohmann::json devices = nlohmann::json::array();
    for (const DeviceMemory& device : report.devices) {
        nlohmann::json live = nlohmann::json::array();
        for (const std::uint32_t i : liveAllocations(device, device.peakEvent)) {
            const Allocation& a = device.allocations[i];
            nlohmann::json item = {{"bytes", a.bytes},
                                   {"op", allocationOpName(trace, a.op)},
                                   {"alloc_time_us", toMicros(a.time - origin)},
                                   {"address", a.address}};
            if (const std::string stack = pythonStackText(report, device, a); !stack.empty())
                item["python_stack"] = stack;
            live.push_back(std::move(item));
        }
        const MemoryAnomalies& bad = device.anomalies;
        devices.push_back({{"device", device.name},
                           {"peak_allocated_bytes", device.peakAllocated},
                           {"peak_reserved_bytes", device.peakReserved},
                           {"peak_time_us", toMicros(device.peakTime - origin)},
                           {"events", device.events.size()},
                           {"allocations", device.allocations.size()},
                           {"never_freed", device.neverFreed},
                           {"anomalies",
                            {{"unmatched_frees", bad.unmatchedFrees},
                             {"reused_addresses", bad.reusedAddresses},
                             {"size_mismatches", bad.sizeMismatches},
                             {"negative_totals", bad.negativeTotals},
                             {"absurd_sizes", bad.absurdSizes},
                             {"without_address", bad.withoutAddress}}},
                           {"live_at_peak", std::move(live)}});
    }
    nlohmann::json ops = nlohmann::json::array();
    for (const OperatorMemoryTable& table : tables) {
        for (const OperatorMemoryRow& row : table.rows) {
            ops.push_back({{"device", table.device},
                           {"name", row.name},
                           {"calls", row.calls},
                           {"size_increase_bytes", row.sizeIncrease},
                           {"self_size_increase_bytes", row.selfSizeIncrease},
                           {"allocation_count", row.allocationCount},
                           {"self_allocation_count", row.selfAllocationCount},
                           {"allocation_size_bytes", row.allocationSize},
                           {"self_allocation_size_bytes", row.selfAllocationSize}});
        }
    }
    return {{"devices", std::move(devices)},
            {"ops", std::move(ops)},
            {"events_without_device", report.eventsWithoutDevice}};
}

} // namespace ks::analysis
