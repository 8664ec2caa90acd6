#include "core/analysis/memoryreport.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>
#include <utility>

namespace ks::analysis {

namespace {

// Device key: host memory is one "CPU" whatever its id (the plugin's naming).
std::pair<int, int> deviceKeyOf(const MemoryEvent& e)
{
    if (isHostMemoryType(e.deviceType))
        return {0, -1};
    if (isDeviceMemoryType(e.deviceType))
        return {1, e.deviceId};
    return {-1, -1};
}

std::int64_t magnitude(std::int64_t bytes)
{
    return bytes == std::numeric_limits<std::int64_t>::min() ? std::numeric_limits<std::int64_t>::max()
                                                             : (bytes < 0 ? -bytes : bytes);
}

// The allocator's story of one device, in event order.
void pairAllocations(const MemoryReport& report, DeviceMemory& device)
{
    const auto& all = report.events();
    std::unordered_map<std::uint64_t, std::uint32_t> live; // address -> allocation index
    live.reserve(device.events.size() / 2 + 1);
    for (std::uint32_t k = 0; k < device.events.size(); ++k) {
        const std::uint32_t index = device.events[k];
        const MemoryEvent& e = all[index];
        if (e.hasTotals && (e.totalAllocated < 0 || e.totalReserved < 0))
            ++device.anomalies.negativeTotals;
        if (e.hasTotals && (device.peakEvent == kNoIndex || e.totalAllocated > device.peakAllocated)) {
            device.peakEvent = k;
            device.peakAllocated = e.totalAllocated;
            device.peakTime = e.time;
        }
        if (e.hasTotals)
            device.peakReserved = std::max(device.peakReserved, e.totalReserved);
        if (magnitude(e.bytes) >= kAbsurdAllocationBytes) {
            ++device.anomalies.absurdSizes;
            continue;
        }
        if (!e.hasAddress) {
            ++device.anomalies.withoutAddress;
            continue;
        }
        if (e.bytes > 0) { // the plugin: Bytes > 0 allocates, anything else frees
            const auto next = static_cast<std::uint32_t>(device.allocations.size());
            const auto [it, fresh] = live.try_emplace(e.address, next);
            if (!fresh) {
                Allocation& lost = device.allocations[it->second];
                lost.addressReused = true;
                lost.endEvent = k;
                lost.endTime = e.time;
                ++device.anomalies.reusedAddresses;
                it->second = next;
            }
            Allocation a;
            a.allocEvent = k;
            a.bytes = e.bytes;
            a.address = e.address;
            a.time = e.time;
            a.op = report.opOfEvent[index];
            device.allocations.push_back(a);
            continue;
        }
        const auto it = live.find(e.address);
        if (it == live.end()) {
            ++device.anomalies.unmatchedFrees;
            continue;
        }
        Allocation& a = device.allocations[it->second];
        a.endEvent = k;
        a.endTime = e.time;
        if (e.bytes != -a.bytes)
            ++device.anomalies.sizeMismatches;
        live.erase(it);
    }
    device.neverFreed = live.size();
}

} // namespace

std::vector<SliceId> pythonStackAt(const Trace& trace, std::uint32_t track, TimeNs time)
{
    std::vector<SliceId> stack;
    if (track >= trace.tracks().size())
        return stack;
    for (const Lane& lane : trace.tracks()[track].lanes) {
        if (lane.kind != LaneKind::Python)
            continue;
        for (std::uint32_t depth = 0; depth < lane.depthCount; ++depth) {
            const SliceId s = trace.sliceAt(trace.tracks()[track].rowBegin + lane.firstRow + depth, time);
            if (s == kNoSlice)
                break;
            if (trace.classOf(s) == SliceClass::PythonFunction)
                stack.push_back(s);
        }
    }
    return stack;
}

bool hasPythonStacks(const Trace& trace)
{
    return std::any_of(trace.tracks().begin(), trace.tracks().end(), [](const Track& track) {
        return std::any_of(track.lanes.begin(), track.lanes.end(),
                           [](const Lane& lane) { return lane.kind == LaneKind::Python; });
    });
}

bool isMemoryOwnerClass(SliceClass c) { return c == SliceClass::CpuOp || c == SliceClass::UserAnnotation; }

void opChainAt(const Trace& trace, std::uint32_t track, TimeNs time, std::vector<SliceId>& chain)
{
    chain.clear();
    if (track >= trace.tracks().size())
        return;
    for (const Lane& lane : trace.tracks()[track].lanes) {
        if (lane.kind != LaneKind::Main)
            continue;
        for (std::uint32_t depth = 0; depth < lane.depthCount; ++depth) {
            const SliceId s = trace.sliceAt(trace.tracks()[track].rowBegin + lane.firstRow + depth, time);
            if (s == kNoSlice)
                break; // slices of a lane nest: nothing deeper holds the time either
            if (isMemoryOwnerClass(trace.classOf(s)))
                chain.push_back(s);
        }
    }
}

std::uint32_t DeviceMemory::positionAt(const std::vector<MemoryEvent>& all, TimeNs t) const
{
    const auto after = std::upper_bound(events.begin(), events.end(), t,
                                        [&](TimeNs time, std::uint32_t i) { return time < all[i].time; });
    return after == events.begin() ? kNoIndex : static_cast<std::uint32_t>(after - events.begin() - 1);
}

const DeviceMemory* MemoryReport::device(std::string_view name) const
{
    for (const DeviceMemory& d : devices) {
        if (d.name == name)
            return &d;
    }
    return nullptr;
}

MemoryReport makeMemoryReport(std::shared_ptr<const facts::TraceFacts> facts)
{
    MemoryReport report;
    report.facts = std::move(facts);
    const Trace& trace = *report.facts->trace;
    const auto& all = report.events();
    const auto& instants = trace.instants();

    report.opOfEvent.assign(all.size(), kNoSlice);
    std::vector<SliceId> chain;
    std::map<std::pair<int, int>, std::size_t> deviceIndex; // sorted: CPU, then GPUs by id
    std::vector<std::vector<std::uint32_t>> eventsOf;
    for (std::uint32_t i = 0; i < all.size(); ++i) {
        const MemoryEvent& e = all[i];
        const std::uint32_t track = instants.track[e.instant];
        opChainAt(trace, track, e.time, chain);
        if (!chain.empty())
            report.opOfEvent[i] = chain.back();
        const auto key = deviceKeyOf(e);
        if (key.first < 0) {
            ++report.eventsWithoutDevice;
            continue;
        }
        const auto [it, fresh] = deviceIndex.try_emplace(key, eventsOf.size());
        if (fresh)
            eventsOf.emplace_back();
        eventsOf[it->second].push_back(i);
    }
    for (const auto& [key, index] : deviceIndex) {
        DeviceMemory device;
        device.isHost = key.first == 0;
        device.deviceId = key.second;
        device.name = device.isHost ? std::string("CPU") : "GPU" + std::to_string(key.second);
        device.events = std::move(eventsOf[index]);
        pairAllocations(report, device);
        report.devices.push_back(std::move(device));
    }
    return report;
}

MemoryReport makeMemoryReport(const facts::TraceFacts& facts)
{
    return makeMemoryReport(std::shared_ptr<const facts::TraceFacts>(std::shared_ptr<const void>(), &facts));
}

std::vector<std::uint32_t> liveAllocations(const DeviceMemory& device, std::uint32_t position)
{
    std::vector<std::uint32_t> live;
    if (position == kNoIndex)
        return live;
    for (std::uint32_t i = 0; i < device.allocations.size(); ++i) {
        const Allocation& a = device.allocations[i];
        if (a.allocEvent > position)
            break; // by allocation time
        if (a.aliveAfter(position))
            live.push_back(i);
    }
    std::stable_sort(live.begin(), live.end(), [&](std::uint32_t x, std::uint32_t y) {
        return device.allocations[x].bytes > device.allocations[y].bytes;
    });
    return live;
}

std::vector<std::uint32_t> liveAllocationsAt(const MemoryReport& report, const DeviceMemory& device, TimeNs t)
{
    return liveAllocations(device, device.positionAt(report.events(), t));
}

std::string_view allocationOpName(const Trace& trace, SliceId op)
{
    return op == kNoSlice ? kUnknownOp : trace.str(trace.slices().name[op]);
}

std::string pythonStackText(const MemoryReport& report, const DeviceMemory& device, const Allocation& a)
{
    const Trace& trace = *report.facts->trace;
    const MemoryEvent& e = report.events()[device.events[a.allocEvent]];
    const auto stack = pythonStackAt(trace, trace.instants().track[e.instant], e.time);
    std::string text;
    for (std::size_t i = stack.size(); i-- > 0;) { // innermost first
        if (!text.empty())
            text += '\n';
        text += trace.str(trace.slices().name[stack[i]]);
    }
    return text;
}

} // namespace ks::analysis
