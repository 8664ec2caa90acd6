#pragma once
// The in-memory trace model: immutable once built (see TraceBuilder), shared read-only
// between threads. Slices live in one struct-of-arrays table, sorted by
// (track, lane, depth, start), so every row of the timeline is a contiguous, time-ordered
// and non-overlapping range that can be binary searched.
#include "core/model/appendonlyarray.h"
#include "core/model/diagnostics.h"
#include "core/model/eventtextsource.h"
#include "core/model/shapeargspool.h"
#include "core/model/stringpool.h"
#include "core/model/time.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ks {

using SliceId = std::uint32_t;
inline constexpr SliceId kNoSlice = std::numeric_limits<SliceId>::max();
inline constexpr std::uint32_t kNoIndex = std::numeric_limits<std::uint32_t>::max();
inline constexpr std::int64_t kNoId = std::numeric_limits<std::int64_t>::min();

// A pid or tid exactly as the JSON wrote it: 0 and "0" are different keys.
struct JsonId {
    std::int64_t number = 0;
    StringId text = kEmptyString;
    bool isText = false;

    static JsonId fromNumber(std::int64_t n) { return {n, kEmptyString, false}; }
    static JsonId fromText(StringId s) { return {0, s, true}; }
    bool operator==(const JsonId&) const = default;
    // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 flags the 0 of a defaulted <=>'s synthesized compare
    auto operator<=>(const JsonId&) const = default;
};

enum class TrackKind : std::uint8_t { CpuThread, GpuStream, Other };

// Sub-lanes of a track: every slice of one lane nests properly inside the lane.
enum class LaneKind : std::uint8_t {
    Main, // ops, annotations, runtime calls, kernels
    Python, // python_function frames (they overlap record_function ranges)
    Overflow, // slices that partially overlap a sibling
};

struct Lane {
    LaneKind kind = LaneKind::Main;
    std::uint16_t depthCount = 0;
    std::uint32_t firstRow = 0; // rows firstRow .. firstRow + depthCount - 1
};

// One horizontal row of the timeline: slices of one (track, lane, depth).
struct Row {
    std::uint32_t track = 0;
    std::uint16_t lane = 0;
    std::uint16_t depth = 0;
    SliceId begin = 0; // slices [begin, end) sorted by start, non-overlapping
    SliceId end = 0;
};

struct Track {
    std::uint32_t process = 0;
    JsonId tid;
    TrackKind kind = TrackKind::CpuThread;
    std::string name; // thread_name metadata, as written (may be empty)
    std::int64_t sortIndex = 0;
    bool hasSortIndex = false;
    std::vector<Lane> lanes;
    std::uint32_t rowBegin = 0, rowEnd = 0;
    SliceId sliceBegin = 0, sliceEnd = 0; // all slices of the track
    std::uint32_t instantBegin = 0, instantEnd = 0; // thread-scoped instants
    std::uint64_t flowEventCount = 0; // s/t/f events bound here (for `info`)

    std::uint32_t sliceCount() const { return sliceEnd - sliceBegin; }
    std::uint32_t instantCount() const { return instantEnd - instantBegin; }
};

struct Process {
    JsonId pid;
    bool isDevice = false; // GPU rows: pid is the device index, tids are streams
    int deviceIndex = -1; // for device processes with a numeric pid
    std::string name; // process_name metadata
    std::string labels; // process_labels metadata ("CPU", "GPU 0")
    std::int64_t sortIndex = 0;
    bool hasSortIndex = false;
    std::vector<std::uint32_t> tracks; // in display order
    std::uint64_t eventCount = 0; // slices + instants + counter samples
};

// Kernel / memcpy / memset fields that analysis needs without decoding args.
struct GpuOpInfo {
    std::int32_t device = -1;
    std::int64_t stream = -1;
    std::int32_t grid[3] = {0, 0, 0};
    std::int32_t block[3] = {0, 0, 0};
    std::int32_t registersPerThread = -1;
    std::int64_t sharedMemory = -1;
    float blocksPerSm = -1.0f; // +inf when kineto wrote "inf"; <0 when absent
    float warpsPerSm = -1.0f;
    float estAchievedOccupancyPct = -1.0f; // <0 when absent or invalid
    std::int64_t bytes = -1; // memcpy/memset size
};

enum class SliceClass : std::uint8_t {
    Other,
    CpuOp,
    UserAnnotation,
    PythonFunction,
    CudaRuntime,
    CudaDriver,
    Kernel,
    Memcpy,
    Memset,
    GpuUserAnnotation,
    Overhead,
};
SliceClass classifyCategory(std::string_view category);
bool isDeviceCategory(std::string_view category);

struct SliceTable {
    std::vector<TimeNs> start;
    std::vector<TimeNs> duration;
    std::vector<StringId> name;
    std::vector<StringId> category;
    std::vector<std::uint32_t> row;
    std::vector<std::uint64_t> rawOffset; // of the event's JSON text in the event source
    std::vector<std::uint32_t> rawLength; // 0: no text (synthesised)
    std::vector<std::int64_t> correlation; // args.correlation or kNoId
    std::vector<std::int64_t> externalId; // args["External id"] or kNoId
    std::vector<std::uint32_t> shapeArgs; // in Trace::shapeArgs(), or kNoIndex (read the text)

    std::size_t size() const { return start.size(); }
    TimeNs end(SliceId s) const { return start[s] + duration[s]; }
};

enum class InstantScope : std::uint8_t { Thread, Process, Global };

struct InstantTable {
    std::vector<TimeNs> time;
    std::vector<StringId> name;
    std::vector<StringId> category;
    std::vector<std::uint32_t> track; // for Thread scope, else kNoIndex
    std::vector<std::uint32_t> process; // for Process scope, else kNoIndex
    std::vector<InstantScope> scope;
    std::vector<std::uint64_t> rawOffset;
    std::vector<std::uint32_t> rawLength;
    std::size_t size() const { return time.size(); }
};

struct CounterSeries {
    std::uint32_t process = kNoIndex; // kNoIndex when the pid has no other events
    JsonId pid;
    std::string name; // "<event name> <arg key>" (just the event name when the key is "")
    bool derived = false; // made by the loader from other events (the [memory] curves); not written back
    std::vector<TimeNs> time;
    std::vector<double> value;
};

struct Flow {
    StringId category = kEmptyString;
    StringId name = kEmptyString;
    SliceId from = kNoSlice;
    SliceId to = kNoSlice;
    std::uint64_t id = 0; // as the source wrote it (arrows of one s/t/f chain share it)
    // The source's s/t/f event at each end (index into Trace::flowTexts()), kNoIndex for flows
    // without one (v2 bind_id, the collector's): the writer copies those events as written.
    std::uint32_t fromText = kNoIndex;
    std::uint32_t toText = kNoIndex;
};

// A flow event whose other half never came (kineto's orphan f on most CUDA calls, the s of
// sync calls): kept so that it can be shown and written back, but never drawn as an arrow.
struct FlowHalf {
    StringId category = kEmptyString;
    StringId name = kEmptyString;
    std::uint64_t id = 0;
    SliceId slice = kNoSlice;
    std::uint32_t text = kNoIndex; // its s/t/f event in Trace::flowTexts(), as for Flow
    bool isStart = false;
};

struct FlowCategoryStats {
    StringId category = kEmptyString;
    std::uint64_t paired = 0; // arrows
    std::uint64_t unpairedStarts = 0; // s/t with no matching f (e.g. sync calls)
    std::uint64_t unpairedEnds = 0; // f with no s (kineto's orphan f on CPU calls)
    std::uint64_t unbound = 0; // halves with no slice under them
};

struct DeviceProperties {
    int id = -1;
    std::string name;
    std::int64_t totalGlobalMem = 0;
    int computeMajor = 0, computeMinor = 0;
    int numSms = 0;
    int maxThreadsPerBlock = 0, maxThreadsPerMultiprocessor = 0;
    int regsPerBlock = 0, regsPerMultiprocessor = 0;
    int warpSize = 32;
    std::int64_t sharedMemPerBlock = 0, sharedMemPerMultiprocessor = 0, sharedMemPerBlockOptin = 0;
};

// A traceEvents entry that the model does not represent faithfully (object snapshots, legacy
// and nestable async, samples, marks, clock syncs, unknown phases, metadata events, events it
// had to skip, ...): the writer copies its text verbatim, in file order. Slices and instants
// the loader derived from such an entry (async spans, marks) share its offset and are not
// written a second time.
struct KeptEntry {
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
    char phase = '?'; // the entry's "ph" ('?' when missing)
};

// A span of raw event text in the event source.
struct TextSpan {
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
};

// Count of traceEvents entries per "<ph>/<cat>".
struct PhaseCategoryCount {
    std::string key;
    std::uint64_t count = 0;
};

class Trace {
public:
    Trace() = default;
    Trace(Trace&&) noexcept = default;
    Trace& operator=(Trace&&) noexcept = default;

    const StringPool& strings() const { return m_strings; }
    std::string_view str(StringId id) const { return m_strings.view(id); }

    const std::vector<Process>& processes() const { return m_processes; }
    const std::vector<Track>& tracks() const { return m_tracks; }
    const std::vector<Row>& rows() const { return m_rows; }
    const SliceTable& slices() const { return m_slices; }
    const InstantTable& instants() const { return m_instants; }
    const std::vector<CounterSeries>& counters() const { return m_counters; }
    const std::vector<Flow>& flows() const { return m_flows; }
    const std::vector<FlowCategoryStats>& flowStats() const { return m_flowStats; }
    const std::vector<DeviceProperties>& deviceProperties() const { return m_deviceProperties; }
    // The distinct shape args of the op events (SliceTable::shapeArgs indexes it).
    const ShapeArgsPool& shapeArgs() const { return m_shapeArgs; }
    // Top-level keys other than traceEvents, with their raw JSON text, in file order.
    const std::vector<std::pair<std::string, std::string>>& metadata() const { return m_metadata; }
    const std::string* metadataValue(std::string_view key) const;
    const Diagnostics& diagnostics() const { return m_diagnostics; }
    const std::vector<PhaseCategoryCount>& phaseCategoryCounts() const { return m_phaseCounts; }
    std::uint64_t traceEventCount() const { return m_traceEventCount; }

    // Unix-epoch ns that times are relative to (kineto's baseTimeNanoseconds), 0 if absent.
    std::int64_t baseTimeNs() const { return m_baseTimeNs; }
    // Extent of all slices, instants and counters; {0, 0} when empty.
    TimeNs startTime() const { return m_startTime; }
    TimeNs endTime() const { return m_endTime; }

    // --- slices ---
    const Row& rowOf(SliceId s) const { return m_rows[m_slices.row[s]]; }
    std::uint32_t trackOf(SliceId s) const { return rowOf(s).track; }
    SliceClass classOf(SliceId s) const;
    // Duration minus the time covered by its direct children (same lane, depth + 1).
    TimeNs selfTime(SliceId s) const;
    // The first slice of `row` whose end is after `t` (lower bound for culling).
    SliceId firstEndingAfter(std::uint32_t row, TimeNs t) const;
    // The slice of `row` that contains time t, or kNoSlice.
    SliceId sliceAt(std::uint32_t row, TimeNs t) const;
    const GpuOpInfo* gpuOpInfo(SliceId s) const;
    // The raw JSON text of the event ("{...}"), read back from its source; empty if none.
    // Texts are valid UTF-8: ill-formed bytes and lone surrogate escapes become U+FFFD.
    std::string eventText(SliceId s) const;
    std::string instantText(std::uint32_t instant) const;
    // The texts of many slices (instants) in one pass, read in batches in source order: far
    // cheaper than eventText() per slice on gzip files, where every read restarts inflating at
    // a checkpoint. sink(id, text) is called once per id, in offset order; text is empty if
    // unreadable. Defined in tracetext.cpp.
    void forEachEventText(std::span<const SliceId> slices,
                          const std::function<void(SliceId, std::string_view)>& sink) const;
    void forEachInstantText(std::span<const std::uint32_t> instants,
                            const std::function<void(std::uint32_t, std::string_view)>& sink) const;

    // --- flows ---
    // Indices into flows() of the flows that end / start at the slice.
    std::span<const std::uint32_t> incomingFlows(SliceId s) const;
    std::span<const std::uint32_t> outgoingFlows(SliceId s) const;
    // Unpaired flow halves bound to the slice (sorted by slice).
    std::span<const FlowHalf> unpairedFlowHalves(SliceId s) const;
    const std::vector<FlowHalf>& unpairedFlowHalves() const { return m_unpairedHalves; }
    // The text of every s/t/f event bound to a slice (Flow::fromText/toText, FlowHalf::text).
    const std::vector<TextSpan>& flowTexts() const { return m_flowTexts; }

    // --- entries kept verbatim (sorted by offset) ---
    const std::vector<KeptEntry>& keptEntries() const { return m_keptEntries; }
    bool isKeptOffset(std::uint64_t offset) const; // a slice or instant derived from a kept entry
    bool hasTextSource() const { return m_textSource != nullptr; }
    // Any spans of source text, read in batches like forEachEventText; sink(index into spans, text).
    void forEachText(std::span<const TextSpan> spans,
                     const std::function<void(std::uint32_t, std::string_view)>& sink) const;

    // --- display ---
    std::string processDisplayName(std::uint32_t process) const; // "GPU 0 · NVIDIA H200", "python3 (572)"
    std::string trackDisplayName(std::uint32_t track) const; // "stream 7", "thread 602 (pt_autograd_0)"
    const DeviceProperties* deviceFor(int deviceIndex) const;

    // Approximate heap bytes owned by the model, by part (for the benchmark).
    struct MemoryUse {
        std::size_t slices = 0; // times, names, categories, rows, correlation and External ids
        std::size_t textOffsets = 0; // where each slice's and instant's text (its args) is in the source
        std::size_t strings = 0; // the name pool and the shape args pool
        std::size_t flows = 0; // arrows, their by-slice indices, unpaired halves
        std::size_t lanes = 0; // processes, tracks, lanes, rows
        std::size_t instants = 0;
        std::size_t counters = 0;
        std::size_t gpuOps = 0; // kernel / memcpy launch fields
        std::size_t kept = 0; // entries kept verbatim for Save As
        std::size_t total() const
        {
            return slices + textOffsets + strings + flows + lanes + instants + counters + gpuOps + kept;
        }
    };
    MemoryUse memoryUse() const;
    std::size_t memoryBytes() const { return memoryUse().total(); }

private:
    friend class TraceBuilder;
    Trace(const Trace&) = default; // TraceBuilder::snapshot() copies a builder's model (without its slices)
    StringPool m_strings;
    ShapeArgsPool m_shapeArgs;
    std::vector<Process> m_processes;
    std::vector<Track> m_tracks;
    std::vector<Row> m_rows;
    SliceTable m_slices;
    InstantTable m_instants;
    std::vector<CounterSeries> m_counters;
    std::vector<Flow> m_flows;
    std::vector<std::uint32_t> m_flowsByTo; // flow indices sorted by `to`
    std::vector<std::uint32_t> m_flowsByFrom; // flow indices sorted by `from`
    std::vector<FlowCategoryStats> m_flowStats;
    std::vector<FlowHalf> m_unpairedHalves; // sorted by slice
    std::vector<TextSpan> m_flowTexts;
    std::vector<KeptEntry> m_keptEntries; // sorted by offset
    std::vector<SliceId> m_gpuOpSlices; // sorted; parallel to m_gpuOpRecordOf
    std::vector<std::uint32_t> m_gpuOpRecordOf; // index into m_gpuOpRecords
    // In the order the builder got them, shared with the builder and its other snapshots.
    std::shared_ptr<const GpuOpInfo[]> m_gpuOpRecords;
    std::vector<DeviceProperties> m_deviceProperties;
    std::vector<std::pair<std::string, std::string>> m_metadata;
    Diagnostics m_diagnostics;
    std::vector<PhaseCategoryCount> m_phaseCounts;
    std::uint64_t m_traceEventCount = 0;
    std::int64_t m_baseTimeNs = 0;
    TimeNs m_startTime = 0, m_endTime = 0;
    std::shared_ptr<const EventTextSource> m_textSource;
    std::vector<SliceClass> m_categoryClass; // by StringId, filled for the categories in use
};

} // namespace ks
