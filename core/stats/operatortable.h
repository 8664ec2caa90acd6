#pragma once
// The operator table that torch's key_averages().table() prints, computed from a trace:
// one row per event name (CPU ops, record_function ranges, runtime and driver calls,
// overhead, and GPU activities), with torch's rules for nesting and GPU attribution.
#include "core/model/saturating.h"
#include "core/model/trace.h"

namespace ks::facts {
struct TraceFacts;
}

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

struct OperatorRow {
    std::string name; // "ProfilerStep#3" is grouped as "ProfilerStep*", as torch does
    std::string inputShapes; // only when grouped by shapes: "[[8, 16], [16]]"
    bool isDevice = false; // a GPU activity: kernel, memcpy, memset, GPU-side annotation
    bool isUserAnnotation = false; // record_function range (listed once per side)
    std::uint64_t calls = 0;
    TimeNs selfCpu = 0, cpuTotal = 0;
    TimeNs selfDevice = 0, deviceTotal = 0;
    std::int64_t cpuMemory = 0, selfCpuMemory = 0; // bytes, from [memory] events
    std::int64_t deviceMemory = 0, selfDeviceMemory = 0;
    // Kernels launched by these occurrences (their children's included; a kernel row: itself)
    // and those of them that use tensor cores by name (the plugin's "Tensor Cores Used").
    std::uint64_t kernels = 0, tensorCoreKernels = 0;
    std::vector<SliceId> slices; // the occurrences counted, by start time

    // Rounded to the nearest ns, as torch divides in floating point.
    TimeNs cpuAverage() const { return roundedMean(cpuTotal, calls); }
    TimeNs deviceAverage() const { return roundedMean(deviceTotal, calls); }
};

struct OperatorTable {
    std::vector<OperatorRow> rows; // in order of first appearance
    TimeNs selfCpuTotal = 0; // torch's "Self CPU time total", the base of the CPU %
    TimeNs selfDeviceTotal = 0; // "Self CUDA time total" (GPU annotations excluded)
    bool hasMemory = false; // the trace has [memory] events (profile_memory=True)
    bool hasDeviceTime = false;
};

struct OperatorTableOptions {
    bool groupByInputShapes = false; // reads "Input Dims" from each op's args
    // Only occurrences starting in [rangeStart, rangeEnd) are counted; nesting and GPU
    // attribution still see the whole trace.
    TimeNs rangeStart = std::numeric_limits<TimeNs>::min();
    TimeNs rangeEnd = std::numeric_limits<TimeNs>::max();
};

// True for the utility ops torch's key_averages() never lists ([memory], aten::is_leaf, ...).
bool keyAveragesSkips(std::string_view name);

// GPU activities are credited through the facts' correlation links and memory through their
// [memory] events (both built once per trace).
OperatorTable computeOperatorTable(const facts::TraceFacts& facts, const OperatorTableOptions& options = {});
// The same, classifying the trace, linking its correlations and reading its [memory] events first.
OperatorTable computeOperatorTable(const Trace& trace, const OperatorTableOptions& options = {});

enum class OperatorSortKey {
    Name,
    Calls,
    SelfCpu,
    CpuTotal,
    CpuAverage,
    SelfDevice,
    DeviceTotal,
    DeviceAverage,
    CpuMemory,
    SelfCpuMemory,
    DeviceMemory,
    SelfDeviceMemory,
};
// Accepts our names (self_cpu, cuda_total, calls, ...) and torch's sort_by names
// (self_cpu_time_total, cuda_time_total, device_time_total, count, ...).
std::optional<OperatorSortKey> operatorSortKeyFromName(std::string_view name);
// Descending for numbers, ascending for names; ties keep their order.
void sortOperatorRows(std::vector<OperatorRow>& rows, OperatorSortKey key);

} // namespace ks
