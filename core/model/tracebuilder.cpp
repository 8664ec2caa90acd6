#include "core/model/tracebuilder.h"

#include "core/model/freecolumn.h"
#include "core/model/timelimits.h"
#include "core/model/utf8.h"

#include <algorithm>
#include <cstring>
#include <future>
#include <memory>
#include <numeric>
#include <sys/mman.h>
#include <tuple>
#include <utility>

namespace ks {

namespace {

// Asks for transparent huge pages on a large block: a multi-GB trace otherwise spends much of
// its load time faulting in 4 KiB pages. A huge page is resident as a whole, though, so a small
// block (a small trace) keeps 4 KiB pages rather than up to 2 MiB of slack.
void adviseHugePages(const void* data, std::size_t bytes)
{
    constexpr std::size_t kHugePageColumnBytes = std::size_t(64) << 20;
    if (bytes < kHugePageColumnBytes)
        return;
    constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHuge - 1);
    // Advice only: failure is fine. The range is rounded in integers, so it needs a cast back.
    if (end > begin)
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE); // NOLINT(performance-no-int-to-ptr)
}

// Reserves a column, in huge pages when large. Capacity never written costs address space
// only, so a generous hint is cheap.
template <typename T>
void reserveColumn(std::vector<T>& column, std::size_t n)
{
    column.reserve(n);
    adviseHugePages(column.data(), column.capacity() * sizeof(T));
}

// Runs body(begin, end) over [0, n), in two halves on two threads when `split`.
template <class Body>
void inHalves(std::size_t n, bool split, const Body& body)
{
    if (!split) {
        body(std::size_t(0), n);
        return;
    }
    auto upper = std::async(std::launch::async, [&] { body(n / 2, n); });
    body(std::size_t(0), n / 2);
    upper.get();
}

// Applies `order` (new position -> old index) to columns: to[i] = from[order[i]], each pair
// gathered into one scratch buffer (sequential writes; the reads follow the tracks, a few
// sequential streams) and copied into `to`, which may be `from` itself. Following the
// permutation's cycles instead needs no scratch but jumps across the whole of every column, a
// cache miss per slice and column: most of a build's time at a million slices. The scratch is
// one column of the widest type, not a copy of the model; with `split`, two threads gather
// each column's halves into it (a column each on two threads needed a scratch each).
template <class... Pairs>
void permuteThroughScratch(const std::vector<std::uint32_t>& order, bool split, Pairs... pairs)
{
    constexpr std::size_t kWidest = std::max({sizeof(typename Pairs::Value)...});
    static_assert(kWidest <= sizeof(std::uint64_t));
    const std::size_t n = order.size();
    if (n == 0) // no slices: the columns' data() may be null, which memcpy must not get
        return;
    std::unique_ptr<std::uint64_t[]> scratch; // not zeroed: all written
    const auto gather = [&](auto pair) {
        using T = typename decltype(pair)::Value;
        static_assert(std::is_trivially_copyable_v<T>);
        if (pair.from != pair.to) { // a snapshot's new column: no scratch needed
            pair.to->resize(n);
            inHalves(n, split, [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i)
                    (*pair.to)[i] = (*pair.from)[order[i]];
            });
            return;
        }
        if (!scratch) {
            scratch = std::make_unique_for_overwrite<std::uint64_t[]>(n);
            adviseHugePages(scratch.get(), n * sizeof(std::uint64_t));
        }
        auto* bytes = reinterpret_cast<unsigned char*>(scratch.get()); // NOLINT: raw bytes of trivial values
        inHalves(n, split, [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i)
                std::memcpy(bytes + i * sizeof(T), &(*pair.from)[order[i]], sizeof(T));
        });
        std::memcpy(pair.to->data(), bytes, n * sizeof(T));
    };
    (gather(pairs), ...);
}

// One column to reorder: from the builder's (or a snapshot's source) into the model's.
template <typename T>
struct ColumnPair {
    using Value = T;
    const std::vector<T>* from;
    std::vector<T>* to;
};
template <typename T>
ColumnPair<T> inPlace(std::vector<T>& column)
{
    return {&column, &column};
}

// The slice columns the loader fills, listed once so that reserving and reordering never
// miss one. Each is visited as (from, to): the same table, or a snapshot's source and its own.
template <class Visit>
void visitLoadedColumns(const SliceTable& from, SliceTable& to, Visit visit)
{
    visit(ColumnPair<TimeNs>{&from.start, &to.start}, ColumnPair<TimeNs>{&from.duration, &to.duration},
          ColumnPair<StringId>{&from.name, &to.name}, ColumnPair<StringId>{&from.category, &to.category},
          ColumnPair<std::uint64_t>{&from.rawOffset, &to.rawOffset},
          ColumnPair<std::uint32_t>{&from.rawLength, &to.rawLength},
          ColumnPair<std::int64_t>{&from.correlation, &to.correlation},
          ColumnPair<std::int64_t>{&from.externalId, &to.externalId},
          ColumnPair<std::uint32_t>{&from.shapeArgs, &to.shapeArgs});
}
template <class Visit>
void forEachLoadedColumn(SliceTable& t, Visit visit)
{
    auto each = [&](auto... pairs) { (visit(*pairs.to), ...); };
    visitLoadedColumns(t, t, each);
}

} // namespace

std::size_t TraceBuilder::TrackKeyHash::operator()(const TrackKey& k) const noexcept
{
    auto mix = [](std::uint64_t h, std::uint64_t v) { return (h ^ v) * 0x9E3779B97F4A7C15ull; };
    std::uint64_t h = mix(0, static_cast<std::uint64_t>(k.pid.number) ^ (std::uint64_t(k.pid.text) << 32));
    h = mix(h, static_cast<std::uint64_t>(k.tid.number) ^ (std::uint64_t(k.tid.text) << 32));
    h = mix(h, (k.pid.isText ? 1 : 0) | (k.tid.isText ? 2 : 0) | (k.device ? 4 : 0));
    return static_cast<std::size_t>(h ^ (h >> 31));
}

TraceBuilder::TraceBuilder() = default;

std::uint32_t TraceBuilder::trackFor(JsonId pid, JsonId tid, bool device)
{
    const auto is = [&](std::uint32_t track) {
        if (track == kNoIndex)
            return false;
        const auto& k = m_trackKeys[track];
        return k.device == device && k.pid == pid && k.tid == tid;
    };
    if (is(m_lastTrack))
        return m_lastTrack;
    if (!is(m_trackBeforeLast)) {
        TrackKey key{pid, tid, device};
        auto [it, inserted] = m_trackIndex.try_emplace(key, static_cast<std::uint32_t>(m_trackKeys.size()));
        if (inserted)
            m_trackKeys.push_back(key);
        m_trackBeforeLast = it->second;
    }
    std::swap(m_lastTrack, m_trackBeforeLast);
    return m_lastTrack;
}

std::uint32_t TraceBuilder::threadKeyFor(JsonId pid, JsonId tid, bool device)
{
    if (!m_threadKeys.empty()) { // events of one thread come in runs
        const auto& k = m_threadKeys.back();
        if (k.device == device && k.pid == pid && k.tid == tid)
            return static_cast<std::uint32_t>(m_threadKeys.size() - 1);
    }
    TrackKey key{pid, tid, device};
    auto [it, inserted] = m_threadKeyIndex.try_emplace(key, static_cast<std::uint32_t>(m_threadKeys.size()));
    if (inserted)
        m_threadKeys.push_back(key);
    return it->second;
}

SliceClass TraceBuilder::categoryClass(StringId category)
{
    auto& classes = m_trace.m_categoryClass;
    if (category >= m_categoryKnown.size()) {
        m_categoryKnown.resize(category + 1, false);
        classes.resize(category + 1, SliceClass::Other);
    }
    if (!m_categoryKnown[category]) {
        m_categoryKnown[category] = true;
        classes[category] = classifyCategory(m_trace.str(category));
    }
    return classes[category];
}

void TraceBuilder::reserveForEvents(std::size_t events) { reserveFor({events, events / 8, events / 4, events / 8}); }

void TraceBuilder::reserveFor(const EventCounts& counts)
{
    // Doubling would copy every column and fault in about twice its final memory.
    const auto atMost = [](std::size_t n) { return std::min<std::size_t>(n, std::size_t(1) << 31); };
    const std::size_t slices = atMost(counts.slices);
    auto& t = m_trace.m_slices;
    forEachLoadedColumn(t, [&](auto& column) { reserveColumn(column, slices); });
    reserveColumn(m_sliceTrack, slices);
    reserveColumn(m_sliceIsPython, slices);
    reserveColumn(m_flowEvents, atMost(counts.flowEvents));
    reserveColumn(m_instantEvents, atMost(counts.instants));
    m_gpuOps.reserve(atMost(counts.gpuOps));
    reserveColumn(m_gpuOpSlice, atMost(counts.gpuOps));
}

std::uint32_t TraceBuilder::addSlice(const SliceEvent& e)
{
    auto& t = m_trace.m_slices;
    const auto index = static_cast<std::uint32_t>(t.start.size());
    // The JSON path already skips times beyond the limit; the collector's come unchecked.
    // Ends stay within it too, so that any span of the trace (end - start) fits in TimeNs.
    const TimeNs start = std::clamp(e.start, -kMaxTimeNs, kMaxTimeNs);
    t.start.push_back(start);
    t.duration.push_back(std::clamp(e.duration, TimeNs(0), std::min(kMaxTimeNs, kMaxTimeNs - start)));
    t.name.push_back(e.name);
    t.category.push_back(e.category);
    t.rawOffset.push_back(e.rawOffset);
    t.rawLength.push_back(e.rawLength);
    t.correlation.push_back(e.correlation);
    t.externalId.push_back(e.externalId);
    // emplace_back: with one more push_back call here GCC 12 put four columns' push_back out of line.
    t.shapeArgs.emplace_back(e.shapeArgs);
    m_sliceTrack.push_back(trackFor(e.pid, e.tid, e.device));
    m_sliceIsPython.push_back(categoryClass(e.category) == SliceClass::PythonFunction);
    if (e.gpuOp) {
        m_gpuOpSlice.push_back(index);
        m_gpuOps.append(*e.gpuOp);
    }
    return index;
}

void TraceBuilder::addInstant(const InstantEvent& e)
{
    m_instantEvents.push_back({std::clamp(e.time, -kMaxTimeNs, kMaxTimeNs), e.rawOffset, e.name, e.category,
                               e.rawLength, threadKeyFor(e.pid, e.tid, e.device), e.scope});
    if (e.scope == InstantScope::Thread)
        trackFor(e.pid, e.tid, e.device);
}

void TraceBuilder::addCounterSample(JsonId pid, std::string_view seriesName, TimeNs time, double value, bool derived)
{
    addCounterSample(counterSeries(pid, seriesName, derived), time, value);
}

void TraceBuilder::addCounterSample(std::uint32_t seriesIndex, TimeNs time, double value)
{
    auto& series = m_trace.m_counters[seriesIndex];
    series.time.push_back(std::clamp(time, -kMaxTimeNs, kMaxTimeNs));
    series.value.push_back(value);
}

std::uint32_t TraceBuilder::counterSeries(JsonId pid, std::string_view seriesName, bool derived)
{
    auto [it, inserted] = m_counterIndex.try_emplace({pid, std::string(seriesName)},
                                                     static_cast<std::uint32_t>(m_trace.m_counters.size()));
    if (inserted) {
        CounterSeries series;
        series.pid = pid;
        series.name = utf8::sanitized(seriesName);
        series.derived = derived;
        m_trace.m_counters.push_back(std::move(series));
    }
    return it->second;
}

void TraceBuilder::addFlowEvent(const FlowEvent& e)
{
    const std::uint32_t thread = e.pendingSlice == kNoIndex ? threadKeyFor(e.pid, e.tid, e.device) : kNoIndex;
    m_flowEvents.push_back(
        {e.id, e.time, e.rawOffset, e.category, e.name, e.pendingSlice, e.rawLength, thread, e.phase, e.bindEnclosing});
}

void TraceBuilder::keepEntry(std::uint64_t offset, std::uint32_t length, char phase)
{
    m_trace.m_keptEntries.push_back({offset, length, phase});
}

void TraceBuilder::setProcessName(JsonId pid, std::string_view name)
{
    m_processMeta[pid].name = utf8::sanitized(name);
}

void TraceBuilder::setProcessLabels(JsonId pid, std::string_view labels)
{
    m_processMeta[pid].labels = utf8::sanitized(labels);
}

void TraceBuilder::setProcessSortIndex(JsonId pid, std::int64_t index)
{
    auto& m = m_processMeta[pid];
    m.sortIndex = index;
    m.hasSortIndex = true;
}

void TraceBuilder::setThreadName(JsonId pid, JsonId tid, std::string_view name)
{
    m_threadMeta[{pid, tid}].name = utf8::sanitized(name);
}

void TraceBuilder::setThreadSortIndex(JsonId pid, JsonId tid, std::int64_t index)
{
    auto& m = m_threadMeta[{pid, tid}];
    m.sortIndex = index;
    m.hasSortIndex = true;
}

void TraceBuilder::addMetadata(std::string key, std::string rawJson)
{
    if (utf8::firstInvalid(key) != utf8::kValid)
        key = utf8::sanitized(key);
    if (utf8::firstInvalidJson(rawJson) != utf8::kValid)
        rawJson = utf8::sanitizedJson(rawJson);
    m_trace.m_metadata.emplace_back(std::move(key), std::move(rawJson));
}

void TraceBuilder::setDeviceProperties(std::vector<DeviceProperties> props)
{
    for (auto& p : props)
        p.name = utf8::sanitized(p.name);
    m_trace.m_deviceProperties = std::move(props);
}

void TraceBuilder::setTextSource(std::shared_ptr<const EventTextSource> source)
{
    m_trace.m_textSource = std::move(source);
}

void TraceBuilder::countEntry(char phase, StringId category)
{
    ++m_phaseCounts[(std::uint64_t(static_cast<unsigned char>(phase)) << 32) | category];
}

void TraceBuilder::countEntry(std::string_view key) { ++m_otherPhaseCounts[std::string(key)]; }

Trace TraceBuilder::finish()
{
    // classOf() indexes by any category id, so cover the whole pool.
    m_trace.m_categoryClass.resize(m_trace.m_strings.size(), SliceClass::Other);
    buildProcessesAndTracks();
    finishInstants(); // first: its pending events go before the slices' reorder, the peak RSS
    // The flows' pairing order reads the flow events alone: a large trace sorts them on another
    // thread while the slices are sorted and laid out, before the reorder's peak.
    constexpr std::size_t kParallelPairingFlows = 1 << 16;
    auto pairing =
        std::async(events().m_flowEvents.size() >= kParallelPairingFlows ? std::launch::async : std::launch::deferred,
                   [this] { return flowPairingOrder(); });
    auto byStart = layOutTracks();
    freeColumn(m_sliceIsPython); // scratch columns go as soon as they are used: the peak RSS is here
    std::vector<std::uint32_t> flowOrder = pairing.get();

    // Final order: by row (track, lane, depth), then start. byStart is already start
    // ordered within each track, so a stable bucket pass by row finishes the job.
    const std::size_t n = byStart.size();
    auto& rows = m_trace.m_rows;
    std::vector<std::uint32_t> rowOfPending(n);
    std::vector<std::uint32_t> rowFill(rows.size() + 1, 0);
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto& track = m_trace.m_tracks[m_sliceTrack[i]];
        const auto& lane = track.lanes[m_laneOfPending[i]];
        rowOfPending[i] = track.rowBegin + lane.firstRow + m_depthOfPending[i];
        ++rowFill[rowOfPending[i] + 1];
    }
    freeColumn(m_sliceTrack);
    freeColumn(m_laneOfPending);
    freeColumn(m_depthOfPending);
    std::partial_sum(rowFill.begin(), rowFill.end(), rowFill.begin());
    for (std::size_t r = 0; r < rows.size(); ++r) {
        rows[r].begin = rowFill[r];
        rows[r].end = rowFill[r + 1];
    }
    std::vector<std::uint32_t> order(n);
    std::vector<SliceId> finalIdOfPending(n);
    for (std::uint32_t old : byStart) {
        const auto pos = rowFill[rowOfPending[old]]++;
        order[pos] = old;
        finalIdOfPending[old] = pos;
    }
    freeColumn(byStart);
    freeColumn(rowOfPending);

    // Large traces gather on two threads (a thread costs more than a small trace's whole reorder).
    auto& t = m_trace.m_slices;
    const SliceTable& added = events().m_trace.m_slices; // t itself unless this is a snapshot
    constexpr std::size_t kParallelReorderSlices = 1 << 16;
    visitLoadedColumns(added, t,
                       [&](auto... columns) { permuteThroughScratch(order, n >= kParallelReorderSlices, columns...); });
    freeColumn(order);
    t.row.resize(n);
    for (std::uint32_t r = 0; r < rows.size(); ++r)
        std::fill(t.row.begin() + rows[r].begin, t.row.begin() + rows[r].end, r);
    for (auto& track : m_trace.m_tracks) {
        track.sliceBegin = track.rowBegin < track.rowEnd ? rows[track.rowBegin].begin : 0;
        track.sliceEnd = track.rowBegin < track.rowEnd ? rows[track.rowEnd - 1].end : 0;
    }

    // GPU-op side table, keyed by final slice id: each record's final slice marked, then read
    // out in slice order with its record (linear; sorting (id, record) pairs was not). The
    // records stay where they were added, shared with the builder's later snapshots.
    const auto& records = events().m_gpuOps;
    if (records.size()) {
        std::vector<std::uint32_t> recordAt(n, kNoIndex);
        for (std::uint32_t i = 0; i < m_gpuOpSlice.size(); ++i)
            recordAt[finalIdOfPending[m_gpuOpSlice[i]]] = i;
        m_trace.m_gpuOpSlices.reserve(records.size());
        m_trace.m_gpuOpRecordOf.reserve(records.size());
        for (SliceId s = 0; s < n; ++s) {
            if (recordAt[s] != kNoIndex) {
                m_trace.m_gpuOpSlices.push_back(s);
                m_trace.m_gpuOpRecordOf.push_back(recordAt[s]);
            }
        }
        m_trace.m_gpuOpRecords = records.share();
    }
    freeColumn(m_gpuOpSlice);
    m_gpuOps = {};

    bindAndPairFlows(finalIdOfPending, std::move(flowOrder));
    freeColumn(finalIdOfPending);
    finishCounters();
    finishPhaseCounts();
    computeExtent();
    std::stable_sort(m_trace.m_keptEntries.begin(), m_trace.m_keptEntries.end(),
                     [](const KeptEntry& a, const KeptEntry& b) { return a.offset < b.offset; });

    for (auto& p : m_trace.m_processes) {
        p.eventCount = 0;
        for (auto ti : p.tracks)
            p.eventCount += m_trace.m_tracks[ti].sliceCount() + m_trace.m_tracks[ti].instantCount();
    }
    for (const auto& c : m_trace.m_counters) {
        if (c.process != kNoIndex)
            m_trace.m_processes[c.process].eventCount += c.time.size();
    }

    Trace out = std::move(m_trace);
    *this = TraceBuilder();
    return out;
}

Trace TraceBuilder::snapshot()
{
    // The events stay here, out of the copy; the copy finishes, reading them from here.
    struct SetAside {
        TraceBuilder& builder;
        SliceTable slices = std::exchange(builder.m_trace.m_slices, {});
        std::vector<PendingFlow> flowEvents = std::exchange(builder.m_flowEvents, {});
        std::vector<std::uint32_t> flowOrder = std::exchange(builder.m_flowOrder, {});
        ~SetAside()
        {
            builder.m_flowOrder = std::move(flowOrder);
            builder.m_trace.m_slices = std::move(slices);
            builder.m_flowEvents = std::move(flowEvents);
        }
    };
    TraceBuilder copy = [this] {
        const SetAside setAside{*this};
        return TraceBuilder(*this);
    }();
    copy.m_snapshotOf = this;
    return copy.finish();
}

TraceBuilder::Mark TraceBuilder::mark() const
{
    return {m_trace.m_slices.size(), m_gpuOps.size(),           m_flowEvents.size(),
            m_instantEvents.size(),  m_trace.m_metadata.size(), m_trace.m_diagnostics};
}

void TraceBuilder::rollback(const Mark& mark)
{
    forEachLoadedColumn(m_trace.m_slices, [&](auto& column) { column.resize(mark.slices); });
    m_sliceTrack.resize(mark.slices);
    m_sliceIsPython.resize(mark.slices);
    m_gpuOps.truncate(mark.gpuOps);
    m_gpuOpSlice.resize(mark.gpuOps);
    m_flowEvents.resize(mark.flowEvents);
    std::erase_if(m_flowOrder, [&](std::uint32_t e) { return e >= mark.flowEvents; });
    m_instantEvents.resize(mark.instants);
    m_trace.m_metadata.resize(mark.metadata);
    m_trace.m_diagnostics = mark.diagnostics;
}

void TraceBuilder::setExternalId(std::uint32_t slice, std::int64_t externalId)
{
    m_trace.m_slices.externalId[slice] = externalId;
}

void TraceBuilder::finishCounters()
{
    std::map<JsonId, std::uint32_t> hostProcess;
    for (std::uint32_t p = 0; p < m_trace.m_processes.size(); ++p)
        hostProcess.emplace(m_trace.m_processes[p].pid, p); // first wins: host before device
    for (auto& series : m_trace.m_counters) {
        if (auto it = hostProcess.find(series.pid); it != hostProcess.end())
            series.process = it->second;
        if (std::is_sorted(series.time.begin(), series.time.end()))
            continue;
        std::vector<std::uint32_t> order(series.time.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return series.time[a] < series.time[b]; });
        permuteThroughScratch(order, false, inPlace(series.time), inPlace(series.value));
    }
}

void TraceBuilder::finishPhaseCounts()
{
    std::map<std::string, std::uint64_t> counts = std::move(m_otherPhaseCounts);
    for (const auto& [key, n] : m_phaseCounts) {
        std::string k(1, static_cast<char>(key >> 32));
        k += '/';
        k += m_trace.str(static_cast<StringId>(key & 0xffffffffu));
        counts[k] += n;
    }
    std::uint64_t total = 0;
    for (auto& [k, n] : counts) {
        m_trace.m_phaseCounts.push_back({k, n});
        total += n;
    }
    m_trace.m_traceEventCount = total;
}

void TraceBuilder::computeExtent()
{
    auto& tr = m_trace;
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
    if (m_extentStart != std::numeric_limits<TimeNs>::max())
        lo = hi = std::clamp(m_extentStart, -kMaxTimeNs, kMaxTimeNs);
    const auto& t = tr.m_slices;
    for (std::size_t i = 0; i < t.size(); ++i) {
        lo = std::min(lo, t.start[i]);
        hi = std::max(hi, t.start[i] + t.duration[i]);
    }
    for (auto time : tr.m_instants.time) {
        lo = std::min(lo, time);
        hi = std::max(hi, time);
    }
    for (const auto& c : tr.m_counters) {
        if (!c.time.empty()) {
            lo = std::min(lo, c.time.front());
            hi = std::max(hi, c.time.back());
        }
    }
    if (lo > hi)
        lo = hi = 0;
    tr.m_startTime = lo;
    tr.m_endTime = hi;
}

} // namespace ks
