#pragma once
// Collects events in any order (as kineto writes them: names last, kernels before their
// launches) and turns them into an immutable Trace: tracks named and ordered, slices
// sorted and split into properly nested lanes, flow halves bound and paired.
// Used by the JSON loader and by the collector's host side.
#include "core/model/trace.h"

#include <algorithm>
#include <limits>
#include <map>
#include <span>
#include <string_view>
#include <unordered_map>

namespace ks {

struct SliceEvent {
    JsonId pid, tid;
    bool device = false; // GPU row (see isDeviceCategory)
    TimeNs start = 0;
    TimeNs duration = 0;
    StringId name = kEmptyString;
    StringId category = kEmptyString;
    std::uint64_t rawOffset = 0;
    std::uint32_t rawLength = 0;
    std::int64_t correlation = kNoId;
    std::int64_t externalId = kNoId;
    const GpuOpInfo* gpuOp = nullptr; // kernels, memcpy, memset
    std::int64_t eventIndex = kNoEventIndex;
    std::uint32_t shapeArgs = kNoIndex; // in shapeArgs()
};

struct InstantEvent {
    JsonId pid, tid;
    bool device = false;
    InstantScope scope = InstantScope::Thread;
    TimeNs time = 0;
    StringId name = kEmptyString;
    StringId category = kEmptyString;
    std::uint64_t rawOffset = 0;
    std::uint32_t rawLength = 0;
};

enum class FlowPhase : std::uint8_t { Start, Step, End };

// One half (or step) of a flow: v1 s/t/f events, or v2 bind_id on a slice.
struct FlowEvent {
    FlowPhase phase = FlowPhase::Start;
    StringId category = kEmptyString;
    StringId name = kEmptyString;
    std::uint64_t id = 0; // numeric id (string ids are parsed as hex, as Perfetto does)
    JsonId pid, tid;
    bool device = false;
    TimeNs time = 0;
    bool bindEnclosing = false; // f with "bp":"e"
    std::int64_t eventIndex = kNoEventIndex;
    // v2 flows (and the loader's fast path) name their slice directly:
    std::uint32_t pendingSlice = kNoIndex; // index returned by addSlice
    // The event's own text (v1 flows): kept verbatim if no slice binds it.
    std::uint64_t rawOffset = 0;
    std::uint32_t rawLength = 0;
};

class TraceBuilder {
public:
    TraceBuilder();
    TraceBuilder(TraceBuilder&&) noexcept = default;
    TraceBuilder& operator=(TraceBuilder&&) noexcept = default;
    StringPool& strings() { return m_trace.m_strings; }
    Diagnostics& diagnostics() { return m_trace.m_diagnostics; }
    ShapeArgsPool& shapeArgs() { return m_trace.m_shapeArgs; }

    // Sizes the columns for about `events` traceEvents entries (a hint: more still fit).
    void reserveForEvents(std::size_t events);
    // The same, for a caller that knows how many of each it will add (the collector).
    struct EventCounts {
        std::size_t slices = 0, gpuOps = 0, flowEvents = 0, instants = 0;
    };
    void reserveFor(const EventCounts& counts);
    // Returns the builder's index of the slice (valid until finish()).
    std::uint32_t addSlice(const SliceEvent& e);
    // classifyCategory, computed once per category.
    SliceClass categoryClass(StringId category);
    void addInstant(const InstantEvent& e);
    void addCounterSample(JsonId pid, std::string_view seriesName, TimeNs time, double value, bool derived = false);
    // The series for (pid, name), made on first use; with addCounterSample(series, ...)
    // a caller that caches the id adds samples without building names.
    std::uint32_t counterSeries(JsonId pid, std::string_view seriesName, bool derived = false);
    void addCounterSample(std::uint32_t series, TimeNs time, double value);
    void addFlowEvent(const FlowEvent& e);
    // An entry written back verbatim (see KeptEntry); any order.
    void keepEntry(std::uint64_t offset, std::uint32_t length, char phase);

    // Metadata events: the last one wins.
    void setProcessName(JsonId pid, std::string_view name);
    void setProcessLabels(JsonId pid, std::string_view labels);
    void setProcessSortIndex(JsonId pid, std::int64_t index);
    void setThreadName(JsonId pid, JsonId tid, std::string_view name);
    void setThreadSortIndex(JsonId pid, JsonId tid, std::int64_t index);

    void addMetadata(std::string key, std::string rawJson);
    void setBaseTimeNs(std::int64_t base) { m_trace.m_baseTimeNs = base; }
    // The trace's extent starts at `time` at the latest: a live window's snapshot starts where the
    // recording did, so that its times read as the whole recording's.
    void extendStartTo(TimeNs time) { m_extentStart = std::min(m_extentStart, time); }
    void setDeviceProperties(std::vector<DeviceProperties> props);
    void setTextSource(std::shared_ptr<const EventTextSource> source);
    // Counts every traceEvents entry by "<ph>/<cat>" (ph "?" when missing).
    void countEntry(char phase, StringId category);
    void countEntry(std::string_view key);

    std::size_t sliceCount() const { return m_trace.m_slices.size(); }

    // Builds the trace; the builder is left empty.
    Trace finish();
    // The part of `trace` that its `processes` hold (indices into trace.processes(); others and
    // repeats ignored), as a trace of its own: a rank of a merged collector file
    // (analysis::Workspace splits one per rank), so that every analysis of a whole trace works
    // on one rank alone. Their tracks with their slices, instants and counters, the flows and
    // flow halves between those slices; strings, shape args, devices, metadata, diagnostics and
    // the text source as in `trace` (texts are read from the same file). Processes, tracks and
    // slices keep their order (slice ids are renumbered); the extent is that of what was kept.
    // Defined in tracesubset.cpp.
    static std::shared_ptr<const Trace> subsetOf(const Trace& trace, std::span<const std::uint32_t> processes);
    // Builds the trace of everything added so far and keeps it all, so that more can be added
    // and another snapshot taken: a live recording adds what arrived since the last one
    // instead of building everything again. The events are read in place, not copied.
    Trace snapshot();

    // What has been added so far, for rollback(): a live view adds events derived from
    // everything recorded (spans, arrows, warnings) for one snapshot only.
    struct Mark {
        std::size_t slices = 0, gpuOps = 0, flowEvents = 0, instants = 0, metadata = 0;
        Diagnostics diagnostics;
    };
    Mark mark() const;
    // Drops the slices, GPU ops, flow events, instants, metadata and diagnostics added since
    // `mark`. The tracks and strings they made stay: later events need them again.
    void rollback(const Mark& mark);
    // A slice's External id learnt after it was added (an op range recorded after its calls).
    void setExternalId(std::uint32_t slice, std::int64_t externalId);

private:
    struct TrackKey {
        JsonId pid, tid;
        bool device = false;
        bool operator==(const TrackKey&) const = default;
    };
    struct TrackKeyHash {
        std::size_t operator()(const TrackKey& k) const noexcept;
    };
    struct ProcessMeta {
        std::string name, labels;
        std::int64_t sortIndex = 0;
        bool hasSortIndex = false;
    };
    struct ThreadMeta {
        std::string name;
        std::int64_t sortIndex = 0;
        bool hasSortIndex = false;
    };

    // What the builder keeps of a flow event or an instant until finish(): about a third of
    // the input structs (a 4 GB trace holds millions), with (pid, tid, device) as an index
    // into m_threadKeys.
    struct PendingFlow {
        std::uint64_t id;
        TimeNs time;
        std::uint64_t rawOffset;
        StringId category, name;
        std::uint32_t pendingSlice;
        std::uint32_t rawLength;
        std::uint32_t thread; // kNoIndex when pendingSlice names the slice
        FlowPhase phase;
        bool bindEnclosing;
    };
    struct PendingInstant {
        TimeNs time;
        std::uint64_t rawOffset;
        StringId name, category;
        std::uint32_t rawLength;
        std::uint32_t thread;
        InstantScope scope;
    };

    TraceBuilder(const TraceBuilder&) = default; // snapshot()'s copy, made without the events
    // The builder whose slices, GPU ops and flow events finish() reads: this one, or the one a
    // snapshot() was taken of (they are not copied).
    const TraceBuilder& events() const { return m_snapshotOf ? *m_snapshotOf : *this; }

    std::uint32_t trackFor(JsonId pid, JsonId tid, bool device);
    // Interns (pid, tid, device) without making it a track.
    std::uint32_t threadKeyFor(JsonId pid, JsonId tid, bool device);
    void buildProcessesAndTracks();
    // Sorts each track's slices by start and puts them in lanes (m_laneOfPending,
    // m_depthOfPending, the tracks' lanes and rows); returns the slices in (track, start) order.
    std::vector<std::uint32_t> layOutTracks();
    struct LaneWarnings {
        std::uint64_t overlaps = 0, crowded = 0;
    };
    // One track's lanes: its slices' lanes and depths, and the track's lanes (not yet its rows);
    // counts what it had to bend into `warnings`.
    void layOutTrack(std::uint32_t track, std::span<const std::uint32_t> byStart, LaneWarnings& warnings);
    void numberRows(); // the rows of every track's lanes, in track order
    // `order`: flowPairingOrder(), computed before the slices had their final ids.
    void bindAndPairFlows(const std::vector<SliceId>& finalIdOfPending, std::vector<std::uint32_t> order);
    std::vector<std::uint32_t> flowPairingOrder() const;
    SliceId bindFlowEvent(const PendingFlow& e, const std::vector<SliceId>& finalIdOfPending) const;
    void finishInstants();
    void finishCounters();
    void finishPhaseCounts();
    void computeExtent();
    void indexFlows(); // Trace::m_flowsByFrom and m_flowsByTo of the finished flows

    Trace m_trace;
    TimeNs m_extentStart = std::numeric_limits<TimeNs>::max(); // see extendStartTo()
    TraceBuilder* m_snapshotOf = nullptr; // see events(); it keeps the flows' pairing order
    // The pairing order of the first m_flowOrder.size() flow events, kept by snapshot(): the
    // next snapshot sorts only the events added since and merges them in.
    std::vector<std::uint32_t> m_flowOrder;
    // Slices are appended straight into m_trace.m_slices (columns); these columns only
    // live until finish(): the track of each slice, and the slice of each GPU-op record.
    std::vector<std::uint32_t> m_sliceTrack;
    std::vector<std::uint32_t> m_gpuOpSlice;
    std::vector<std::uint8_t> m_sliceIsPython;
    std::vector<bool> m_categoryKnown; // classifyCategory has run for this StringId
    AppendOnlyArray<GpuOpInfo> m_gpuOps; // shared with the traces made (see finish())
    std::vector<std::uint8_t> m_laneOfPending; // filled by layOutTracks (at most 256 lanes a track)
    std::vector<std::uint16_t> m_depthOfPending;
    std::vector<PendingInstant> m_instantEvents;
    std::vector<PendingFlow> m_flowEvents;
    std::vector<TrackKey> m_threadKeys;
    std::unordered_map<TrackKey, std::uint32_t, TrackKeyHash> m_threadKeyIndex;
    std::vector<TrackKey> m_trackKeys;
    std::unordered_map<TrackKey, std::uint32_t, TrackKeyHash> m_trackIndex;
    // The tracks of the last two slices: a collector's CPU calls and their kernels alternate.
    std::uint32_t m_lastTrack = kNoIndex, m_trackBeforeLast = kNoIndex;
    std::map<JsonId, ProcessMeta> m_processMeta;
    std::map<std::pair<JsonId, JsonId>, ThreadMeta> m_threadMeta;
    std::map<std::pair<JsonId, std::string>, std::uint32_t> m_counterIndex;
    std::unordered_map<std::uint64_t, std::uint64_t> m_phaseCounts; // (ph << 32 | cat) -> n
    std::map<std::string, std::uint64_t> m_otherPhaseCounts;
};

} // namespace ks
