#pragma once
// What the collector recorded of one traced process: its slices, GPU ops, op ranges,
// instants and ac2g halves, in arrival order, with their kineto text in a TextArena. Written
// by ProcessRecorder, read by the trace builders (collectedtrace) and TorchOpLinker.
#include "collector/host/distributedinfo.h"
#include "collector/protocol/framing.h"
#include "core/model/trace.h"

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ks::collector {

enum class EventCategory : std::uint8_t {
    Runtime,
    Driver,
    Kernel,
    Memcpy,
    Memset,
    Sync,
    Annotation, // NVTX range on its CPU thread
    Overhead,
    CpuOp, // a PyTorch operator from an emit_nvtx range (kineto's cpu_op)
    GpuAnnotation, // keep last // an NVTX range projected onto a GPU stream (kineto's gpu_user_annotation)
};
std::string_view categoryName(EventCategory category);
bool isGpuCategory(EventCategory category);

// Pseudo-thread of the per-stream synchronisation rows (kineto's "stream N (sync)").
inline constexpr std::int64_t kSyncRowOffset = 1000000;
// kineto's process for CUPTI overhead rows.
inline constexpr std::int64_t kOverheadPid = -1;

struct RecordedSlice {
    std::int64_t pid = 0; // OS pid, device index for GPU rows, kOverheadPid for overhead
    std::int64_t tid = 0; // OS tid, or CUPTI stream id for GPU rows
    TimeNs start = 0; // relative to the session's base time
    TimeNs duration = 0;
    std::uint32_t name = 0; // index into RecordedProcess::names
    EventCategory category = EventCategory::Runtime;
    std::uint64_t rawOffset = 0;
    std::uint32_t rawLength = 0;
    std::int64_t correlation = kNoId;
    std::int32_t gpuOp = -1; // index into RecordedProcess::gpuOps
    std::int32_t op = -1; // index into RecordedProcess::ops (PyTorch op or label range)
};

// Where a slice ends: recorded times are untrusted, so an end past INT64_MAX saturates.
inline TimeNs sliceEnd(const RecordedSlice& s)
{
    return s.start > std::numeric_limits<TimeNs>::max() - s.duration ? std::numeric_limits<TimeNs>::max()
                                                                     : s.start + s.duration;
}

struct RecordedInstant {
    std::int64_t tid = 0;
    TimeNs time = 0;
    std::uint32_t name = 0;
    bool fromCollector = false; // an error or termination mark (cat "collector"), else an NVTX mark
    std::uint64_t rawOffset = 0;
    std::uint32_t rawLength = 0;
};

// One ac2g half: Start on an API call, End on each GPU operation it issued.
struct RecordedFlow {
    std::uint32_t slice = 0;
    bool start = false;
    std::uint32_t correlation = 0;
};

enum class ConnectionState : std::uint8_t {
    Open,
    Finished, // GOODBYE received
    Terminated, // the connection ended without GOODBYE: the process crashed or was killed
    Detached, // the collector stopped recording while the process ran on
};

struct ProcessCounts {
    std::uint64_t kernels = 0, memcpys = 0, memsets = 0, syncs = 0, apiCalls = 0;
    std::uint64_t ranges = 0, marks = 0, overheads = 0;
    std::uint64_t torchOps = 0; // NVTX ranges that became PyTorch ops or labels
    std::uint64_t malformedOpRanges = 0; // op-like NVTX text that did not parse (kept as ranges)
    TimeNs overheadNs = 0; // total duration of CUPTI's own overhead records
    std::uint64_t unpairedMarkers = 0; // NVTX start or end whose partner never came
    std::uint64_t zeroTimestamps = 0; // GPU ops without timestamps (device buffer exhausted)
    std::uint64_t unfinished = 0; // GPU ops that had not ended at the forced flush
    std::uint64_t badRecords = 0; // payloads that could not be decoded, unknown types
    std::uint64_t gpuOps() const { return kernels + memcpys + memsets; }
};

// What one recorded op range carries beyond its slice.
struct TorchOp {
    std::int64_t externalId = 0;
    std::int64_t sequence = -1;
    bool backward = false;
};

struct RecordedProcess {
    wire::Hello hello;
    ConnectionState state = ConnectionState::Open;
    std::vector<std::string> names{std::string()};
    std::vector<RecordedSlice> slices;
    std::vector<GpuOpInfo> gpuOps;
    std::vector<TorchOp> ops;
    std::vector<RecordedInstant> instants;
    std::vector<RecordedFlow> flows;
    std::vector<wire::Device> devices;
    std::vector<wire::Error> errors;
    std::vector<std::pair<std::int64_t, std::string>> threadNames; // CPU tid -> "thread N (comm)"
    wire::Dropped dropped;
    wire::Goodbye goodbye;
    ProcessCounts counts;
    std::optional<DistributedInfo> distributed; // a torch.distributed rank (torchrun's environment)

    // Brings this copy of a recording up to date with `recorded`, a later state of the same
    // process: the record columns only grow, so only their new tail is copied; the small
    // parts (state, counts, names of threads, devices, errors) are copied whole.
    void catchUp(const RecordedProcess& recorded);

    std::string executableName() const; // basename of the executable
    std::string displayName() const; // "python3 (1234)"
    std::uint64_t droppedTotal() const;
};

DeviceProperties toDeviceProperties(const wire::Device& device);

} // namespace ks::collector
