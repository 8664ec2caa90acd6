#pragma once
// Turns the record stream of one traced process (one connection) into trace events, as
// records arrive: records decoded, names interned (kernel names demangled), API calls and
// GPU operations joined by correlation id in either arrival order (ac2g flow halves), NVTX
// start/end pairs made into ranges on their CPU thread, emit_nvtx ranges into operators.
// The events go to one store, RecordedProcess; their kineto text is written by
// RecordTextWriter. Not thread-safe: owned by the collector session, which serialises access.
#include "collector/host/recordedprocess.h"
#include "collector/host/recordtextwriter.h"
#include "collector/host/textarena.h"
#include "collector/host/torchops.h"
#include "collector/protocol/framedecoder.h"
#include "collector/protocol/framing.h"

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ks::collector {

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
    // The recording, moved out (once nothing more arrives); the recorder is left empty.
    RecordedProcess release() { return std::move(m_data); }

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
        std::optional<std::uint32_t> opText; // its text's wire id in m_opRangeTexts (start only)
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
    // Keeps the event, its kineto text at `text` in the arena (m_writer wrote it).
    std::uint32_t addSlice(RecordedSlice slice, TextArena::Span text);
    void addInstant(RecordedInstant instant, TextArena::Span text);
    void addGpuOp(RecordedSlice slice, const GpuOpInfo& info, TextArena::Span text, std::uint32_t correlation);
    // The two ends of a launch/sync flow, linked by correlation id in either arrival order.
    void linkGpuSide(std::uint32_t slice, std::uint32_t correlation);
    void linkApiSide(std::uint32_t slice, std::uint32_t correlation);
    void noteThread(std::int64_t tid);
    // A range start or end as received (names resolved for a start).
    OpenMarker openMarker(const wire::Marker& m, TimeNs time, bool isStart);
    // The name index of a wire string; an op range text kept aside is interned now (it names a
    // plain range or mark after all).
    std::uint32_t internedName(std::uint32_t wireId);
    void addRange(OpenMarker start, TimeNs end);
    // An emit_nvtx op range: a cpu_op (or user_annotation for a label) with kineto's args.
    void addOpRange(const OpenMarker& start, TimeNs end, const NvtxOp& op);
    // An event of the process itself (error, termination) on its main thread, at the latest time seen.
    RecordedInstant processInstant(std::string name);
    void addEnding(std::string name, std::string_view reason);

    RecordedProcess m_data;
    std::int64_t m_baseNs = 0;
    TimeNs m_lastTime = 0; // latest end of anything received
    RecordTextWriter m_writer;
    ThreadNamer m_threadNamer;
    std::unordered_map<std::string, std::uint32_t> m_nameIndex;
    std::unordered_map<std::uint32_t, std::uint32_t> m_wireNames; // wire id -> name index
    // Op range texts (emit_nvtx's, one per op: they carry its op_id), by wire id, until their
    // range is parsed: not interned, since the recording, its live copies and the trace text
    // writer would each keep every one.
    std::unordered_map<std::uint32_t, std::string> m_opRangeTexts;
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
