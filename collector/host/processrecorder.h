#pragma once
#include <limits>
// Turns the record stream of one traced process (one connection) into trace events, as
// records arrive: kernel names demangled, API calls and GPU operations joined by
// correlation id in either arrival order (ac2g flow halves), NVTX start/end pairs made
// into ranges on their CPU thread, kineto-compatible JSON text kept for every event.
// Not thread-safe: owned by the collector session, which serialises access.
#include "collector/host/distributedinfo.h"
#include "collector/host/textarena.h"
#include "collector/host/torchops.h"
#include "collector/protocol/framing.h"
#include "core/model/trace.h"
#include "core/writing/eventtext.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
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

// Names a CPU thread of a live process ("thread 602 (pt_autograd_0)"). The default reads
// /proc/<pid>/task/<tid>/comm; tests inject their own.
using ThreadNamer = std::function<std::string(std::int64_t pid, std::int64_t tid)>;
std::string procThreadName(std::int64_t pid, std::int64_t tid);

class ProcessRecorder {
public:
    // All times become relative to `baseNs` (Unix-epoch ns, shared by the whole session).
    ProcessRecorder(wire::Hello hello, std::int64_t baseNs, std::shared_ptr<TextArena> arena,
                    ThreadNamer threadNamer = procThreadName);

    // Handles one frame after HELLO; returns false (and counts it) if it could not be decoded.
    bool handle(const wire::Frame& frame);
    // The connection closed. Without a GOODBYE before it the process is marked terminated,
    // or detached when the collector closed it (recording stopped, the process runs on).
    void connectionClosed(bool byCollector = false);

    const RecordedProcess& data() const { return m_data; }

    // --step-marker: each NVTX range or record_function label named `name` becomes the
    // step "ProfilerStep#N" (N = 0, 1, ... per process), as torch.profiler names its steps.
    void setStepMarker(std::string name) { m_stepMarker = std::move(name); }
    void setDistributedInfo(std::optional<DistributedInfo> info) { m_data.distributed = std::move(info); }

private:
    struct Correlation {
        std::int32_t apiSlice = -1;
        bool hasGpuOps = false;
        bool startAdded = false;
    };
    struct OpenMarker {
        TimeNs time = 0;
        std::uint32_t name = 0; // our name index (start only)
        std::uint32_t domain = 0;
        std::uint64_t threadId = 0;
        bool isStart = false;
    };

    template <class Record>
    bool decode(const wire::Frame& frame, Record& record);
    // Decodes the frame as a Record and hands it to the handler; false if it does not decode.
    template <class Record>
    bool decodeInto(const wire::Frame& frame, void (ProcessRecorder::*handler)(const Record&));
    void onString(const wire::StringDef& s);
    void onDevice(const wire::Device& d);
    void onKernel(const wire::Kernel& k);
    void onMemcpy(const wire::Memcpy& m);
    void onMemset(const wire::Memset& m);
    void onApi(const wire::Api& a);
    void onSync(const wire::Sync& s);
    void onMarker(const wire::Marker& m);
    void onOverhead(const wire::Overhead& o);

    // Checks GPU op times; returns false (and counts why) if the op has none usable.
    bool usableGpuTimes(std::int64_t start, std::int64_t end);
    template <typename GpuRecord>
    bool beginGpuOp(const GpuRecord& r, EventCategory category, std::uint64_t& counter, RecordedSlice& slice,
                    GpuOpInfo& info);
    std::uint32_t intern(std::string text);
    std::uint32_t wireName(std::uint32_t wireId) const;
    std::uint32_t kernelName(std::uint32_t wireId);
    std::uint32_t apiName(std::uint32_t wireId);
    // Record times are untrusted: differences saturate instead of overflowing (the trace
    // builder then bounds them like the JSON path's).
    TimeNs relative(std::int64_t epochNs) const { return saturatedDifference(epochNs, m_baseNs); }
    static TimeNs saturatedDifference(std::int64_t a, std::int64_t b)
    {
        TimeNs d = 0;
        if (__builtin_sub_overflow(a, b, &d))
            return a < b ? std::numeric_limits<TimeNs>::min() : std::numeric_limits<TimeNs>::max();
        return d;
    }
    // end - start, 0 when end is not after start.
    static TimeNs spanOf(std::int64_t start, std::int64_t end)
    {
        return end > start ? saturatedDifference(end, start) : 0;
    }
    std::uint32_t addSlice(RecordedSlice slice, std::string_view text);
    std::string sliceText(const RecordedSlice& slice, const EventText& args) const;
    // The name as a JSON string literal, escaped once.
    std::string_view quotedName(std::uint32_t name) const { return m_quotedNames[name]; }
    void addGpuOp(RecordedSlice slice, const GpuOpInfo& info, std::string_view text, std::uint32_t correlation);
    // The two ends of a launch/sync flow, linked by correlation id in either arrival order.
    void linkGpuSide(std::uint32_t slice, std::uint32_t correlation);
    void linkApiSide(std::uint32_t slice, std::uint32_t correlation);
    void noteThread(std::int64_t tid);
    void addRange(const OpenMarker& start, TimeNs end);
    // An emit_nvtx op range: a cpu_op (or user_annotation for a label) with kineto's args.
    void addOpRange(const OpenMarker& start, TimeNs end, const NvtxOp& op);
    // Marks an event of the process itself (error, termination) on its main thread.
    void addProcessInstant(std::string name, const EventText& args);

    RecordedProcess m_data;
    std::int64_t m_baseNs = 0;
    TimeNs m_lastTime = 0; // latest end of anything received
    std::shared_ptr<TextArena> m_arena;
    ThreadNamer m_threadNamer;
    std::unordered_map<std::string, std::uint32_t> m_nameIndex;
    std::vector<std::string> m_quotedNames; // JSON literal of each name, by name index
    std::unordered_map<std::uint32_t, std::uint32_t> m_wireNames; // wire id -> name index
    std::unordered_map<std::uint32_t, std::uint32_t> m_kernelNames; // wire id -> demangled
    std::unordered_map<std::uint32_t, std::uint32_t> m_apiNames; // wire id -> "_vNNNN" stripped
    std::unordered_map<std::uint32_t, Correlation> m_correlations;
    std::unordered_map<std::uint32_t, OpenMarker> m_openMarkers; // by NVTX range id
    std::unordered_map<std::uint32_t, std::uint32_t> m_contextDevice;
    std::unordered_map<std::uint32_t, DeviceProperties> m_deviceProperties; // by device id
    std::unordered_map<std::int64_t, bool> m_knownThreads;
    // Per thread, the last backward node op that ended: its evaluate_function wrapper, which
    // ends next on that thread, takes its sequence number as kineto's does.
    std::unordered_map<std::int64_t, std::pair<std::uint32_t, std::int64_t>> m_lastBackwardNode;
    std::uint32_t stepName(std::uint32_t name);
    std::string m_stepMarker;
    std::int64_t m_nextStep = 0;
    std::int64_t m_nextSyntheticOpId = std::int64_t(1) << 40; // op ranges without "op_id"
};

} // namespace ks::collector
