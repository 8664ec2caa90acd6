#include "core/stats/operatortable.h"

#include "core/facts/memoryevents.h"
#include "core/facts/tracefacts.h"
#include "core/gpu/tensorcores.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace ks {

namespace {

// torch's _filter_name: utility ops that key_averages() never lists.
constexpr std::string_view kFilteredNames[] = {
    "[memory]",
    "[OutOfMemory]",
    "profiler::_record_function_enter",
    "profiler::_record_function_enter_new",
    "profiler::_record_function_exit",
    "aten::is_leaf",
    "aten::output_nr",
    "aten::_version",
};

// torch's _rewrite_name(with_wildcard=True).
std::string torchKey(std::string_view name)
{
    constexpr std::string_view kStep = "ProfilerStep#";
    return name.substr(0, kStep.size()) == kStep ? std::string("ProfilerStep*") : std::string(name);
}

// str() of the Python list torch keeps for input shapes: "[[8, 16], [], [1]]".
void appendPythonRepr(const nlohmann::json& value, std::string& out)
{
    if (value.is_array()) {
        out += '[';
        bool first = true;
        for (const auto& item : value) {
            if (!first)
                out += ", ";
            first = false;
            appendPythonRepr(item, out);
        }
        out += ']';
    } else if (value.is_number_integer()) {
        out += std::to_string(value.get<std::int64_t>());
    } else {
        out += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
}

// Args decoded from event text: "Input Dims" is 2-3 levels deep in real traces, so deeper
// values are dropped rather than recursed into (appendPythonRepr and dump() recurse).
nlohmann::json parseEventText(std::string_view text)
{
    constexpr int kMaxDepth = 64;
    const auto depthGuard = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        return depth <= kMaxDepth;
    };
    return nlohmann::json::parse(text, depthGuard, false);
}

bool isCpuClass(SliceClass c)
{
    switch (c) {
    case SliceClass::CpuOp:
    case SliceClass::UserAnnotation:
    case SliceClass::CudaRuntime:
    case SliceClass::CudaDriver:
    case SliceClass::Overhead: return true;
    default: return false;
    }
}

bool isDeviceActivity(SliceClass c)
{
    return c == SliceClass::Kernel || c == SliceClass::Memcpy || c == SliceClass::Memset;
}

std::string inputShapesOf(std::string_view eventText)
{
    const auto event = parseEventText(eventText);
    if (!event.is_object() || !event.contains("args"))
        return "[]";
    const auto& args = event["args"];
    for (const char* key : {"Input Dims", "Input dims"}) {
        if (args.contains(key)) {
            std::string out;
            appendPythonRepr(args[key], out);
            return out;
        }
    }
    return "[]";
}

// GPU work credited to an op: what its launches ran (by External id), or summed over children.
struct Launched {
    TimeNs time = 0;
    std::uint32_t kernels = 0, tensorCoreKernels = 0;

    Launched& operator+=(const Launched& o)
    {
        time = saturatingAdd(time, o.time);
        kernels += o.kernels;
        tensorCoreKernels += o.tensorCoreKernels;
        return *this;
    }
};

void addMemory(OperatorRow& row, const MemoryBytes& total, const MemoryBytes& self)
{
    row.cpuMemory = addBytes(row.cpuMemory, total.cpu);
    row.selfCpuMemory = addBytes(row.selfCpuMemory, self.cpu);
    row.deviceMemory = addBytes(row.deviceMemory, total.device);
    row.selfDeviceMemory = addBytes(row.selfDeviceMemory, self.device);
}

// Builds torch's event trees one thread at a time and walks each with a stack, so that what it
// holds besides the table is one thread's ops in order (4 bytes each) and one frame per open op:
// a large trace's ops were this table's transient when it kept a node per op for all threads.
class OperatorTableBuilder {
public:
    OperatorTableBuilder(const Trace& trace, const facts::CorrelationIndex& links, const MemoryTimeline& memory,
                         const OperatorTableOptions& options)
        : m_trace(trace)
        , m_links(links)
        , m_memory(memory)
        , m_options(options)
        , m_noShapes(options.groupByInputShapes ? "[]" : "")
    {
    }
    OperatorTable build();

private:
    // A CPU-side event as its parent and its row need it, once all its children are seen.
    struct Op {
        SliceId slice = kNoSlice;
        TimeNs start = 0, end = 0;
        Launched own; // credited to the op itself (its External id)
        Launched children; // the children's own and their descendants'
        TimeNs childCpu = 0;
        MemoryBytes memory, childMemory;
        std::uint32_t childCount = 0;

        Launched total() const
        {
            Launched t = own;
            return t += children;
        }
    };
    // An op still open on its thread. Its first child waits here, not yet counted in the
    // table: torch folds an only child of the same name into its parent (_remove_dup_nodes).
    struct Frame {
        Op op;
        Op firstChild;
    };
    // A CUPTI overhead record and the thread torch nests it on.
    struct Overhead {
        SliceId slice = kNoSlice;
        std::uint32_t track = 0;
        std::int64_t id = kNoId; // of the op it ran in
    };

    void collectFilteredNames();
    // A CPU-side event that torch lists: an op, annotation, runtime or driver call or overhead,
    // not one of the utility ops it filters out.
    bool isCpuEvent(SliceId s) const;
    bool isFiltered(StringId name) const;
    void collectDeviceEvents();
    void linkOverheads();
    SliceId innermostOpAt(TimeNs at, const std::function<bool(std::uint32_t)>& onThread) const;
    const Overhead* overheadOf(SliceId s) const;
    void creditLaunches();
    void readInputShapes();
    // (start, -end, id): the order torch nests a thread's events in.
    bool inTorchOrder(SliceId a, SliceId b) const;
    // The first event at or after s in a row that nesting takes (overheads come separately).
    SliceId nextNestedOp(SliceId s, SliceId end) const;
    void startThread(std::uint32_t track);
    SliceId nextThreadEvent(); // the thread's next event in torch's order; kNoSlice at its end
    void nestTrack(std::uint32_t track);
    Op open(SliceId s) const;
    void close();
    void addRootSpan(TimeNs start, TimeNs end);
    void count(const Op& op);
    void orderCpuRows();
    void countUnmatchedMemory();
    void countDeviceEvents();
    bool inRange(TimeNs start) const { return start >= m_options.rangeStart && start < m_options.rangeEnd; }
    // The op's External id (torch's correlation id of the op); kNoId for runtime and driver
    // calls; an overhead's is that of the op it ran in (linkOverheads).
    std::int64_t idOf(SliceId s) const;
    Launched launchedBy(std::int64_t externalId) const;
    // gpu::usesTensorCores decided once per kernel name: it lowercases and searches the name,
    // which per kernel was a third of the table's time.
    bool usesTensorCores(StringId kernelName);
    std::size_t rowFor(std::string name, bool device, bool annotation, std::string shapes);
    // rowFor without building a key: looked up once per distinct name, side and annotation
    // (ops of one name come thousands of times), then by id. Not for ops grouped by input
    // shapes, whose key differs from op to op.
    std::size_t rowOfName(StringId name, bool device, bool annotation);

    const Trace& m_trace;
    const facts::CorrelationIndex& m_links;
    const MemoryTimeline& m_memory;
    const OperatorTableOptions& m_options;
    const std::string m_noShapes; // the shapes key of what has none: "[]" when grouping by them
    std::vector<StringId> m_filteredNames;
    std::vector<SliceId> m_deviceEvents;
    std::vector<Overhead> m_overheads; // by slice
    std::vector<std::pair<std::int64_t, Launched>> m_launched; // by External id
    std::vector<std::pair<TimeNs, TimeNs>> m_rootSpans; // where ops cover the timeline
    struct RowCursor {
        SliceId at, end; // the row's next event and its end
    };
    std::vector<RowCursor> m_rowCursors; // the rows of the thread being nested, as a heap
    std::vector<SliceId> m_trackOverheads; // the overheads in its ops, in torch's order
    std::size_t m_nextOverhead = 0;
    // For the heap of row cursors: the row whose next event comes later sinks.
    auto laterRow() const
    {
        return [this](const RowCursor& a, const RowCursor& b) { return inTorchOrder(b.at, a.at); };
    }
    std::vector<Frame> m_open; // its ops still open, outermost first
    std::unordered_map<SliceId, std::string> m_shapesOfOp;
    OperatorTable m_table;
    std::unordered_map<std::string, std::size_t> m_rowIndex;
    std::unordered_map<std::uint64_t, std::size_t> m_rowOfName; // (name, device, annotation) -> row
    std::vector<std::pair<TimeNs, SliceId>> m_firstCounted; // per CPU row: its first occurrence
    std::vector<std::int8_t> m_tensorCoresOfName; // by name id: 1 or 0 once decided, -1 before
};

OperatorTable OperatorTableBuilder::build()
{
    collectFilteredNames();
    collectDeviceEvents();
    linkOverheads();
    creditLaunches();
    m_table.hasMemory = !m_memory.empty();
    if (m_options.groupByInputShapes)
        readInputShapes();
    for (std::uint32_t t = 0; t < m_trace.tracks().size(); ++t)
        nestTrack(t);
    m_rowCursors = {};
    m_trackOverheads = {};
    m_open = {};
    orderCpuRows();
    countUnmatchedMemory();
    countDeviceEvents();
    return std::move(m_table);
}

void OperatorTableBuilder::collectFilteredNames()
{
    for (const std::string_view name : kFilteredNames) {
        if (const StringId id = m_trace.strings().find(name); id != UINT32_MAX)
            m_filteredNames.push_back(id);
    }
}

void OperatorTableBuilder::readInputShapes()
{
    std::vector<SliceId> ops;
    for (SliceId s = 0; s < m_trace.slices().size(); ++s) {
        if (m_trace.classOf(s) == SliceClass::CpuOp && inRange(m_trace.slices().start[s]) && isCpuEvent(s))
            ops.push_back(s);
    }
    m_trace.forEachEventText(ops, [&](SliceId s, std::string_view text) { m_shapesOfOp[s] = inputShapesOf(text); });
}

bool OperatorTableBuilder::isCpuEvent(SliceId s) const
{
    return isCpuClass(m_trace.classOf(s)) && !isFiltered(m_trace.slices().name[s]);
}

bool OperatorTableBuilder::isFiltered(StringId name) const
{
    return std::find(m_filteredNames.begin(), m_filteredNames.end(), name) != m_filteredNames.end();
}

void OperatorTableBuilder::collectDeviceEvents()
{
    const auto& names = m_trace.slices().name;
    for (SliceId s = 0; s < names.size(); ++s) {
        const SliceClass c = m_trace.classOf(s);
        if (!isDeviceActivity(c) && c != SliceClass::GpuUserAnnotation)
            continue;
        if (!isFiltered(names[s]))
            m_deviceEvents.push_back(s);
    }
    m_table.hasDeviceTime = !m_deviceEvents.empty();
}

// CUPTI overhead records (e.g. "Activity Buffer Request") carry no ids in the JSON, but torch
// links each to the op that was running when CUPTI asked for the buffer: the overhead is
// nested under that op on its thread and is credited with that op's GPU time as well. The op
// is the innermost enclosing one on the overhead's own thread, never on another thread: the
// CPU thread with the overhead's tid, else (kineto writes the overhead row as pid -1, tid 0)
// the main thread of a host process (tid == pid). Overheads are linked in slice order, and one
// linked earlier can be the op a later one ran in.
void OperatorTableBuilder::linkOverheads()
{
    for (SliceId s = 0; s < m_trace.slices().size(); ++s) {
        if (m_trace.classOf(s) == SliceClass::Overhead && isCpuEvent(s))
            m_overheads.push_back({s, m_trace.trackOf(s), kNoId});
    }
    const auto& tracks = m_trace.tracks();
    const auto isMainThread = [&](std::uint32_t t) {
        const JsonId& pid = m_trace.processes()[tracks[t].process].pid;
        return !pid.isText && !tracks[t].tid.isText && tracks[t].tid.number == pid.number;
    };
    for (Overhead& overhead : m_overheads) {
        const TimeNs at = m_trace.slices().start[overhead.slice];
        const std::uint32_t ownTrack = overhead.track;
        SliceId best = innermostOpAt(at, [&](std::uint32_t t) {
            return t != ownTrack && tracks[t].kind == TrackKind::CpuThread && tracks[t].tid == tracks[ownTrack].tid;
        });
        if (best == kNoSlice)
            best = innermostOpAt(at, isMainThread);
        if (best != kNoSlice) {
            overhead.id = idOf(best);
            overhead.track = overheadOf(best) ? overheadOf(best)->track : m_trace.trackOf(best);
        }
    }
}

// The innermost op with an id that contains `at` on a thread that `onThread` accepts: the
// latest start, then the earliest end, then the first slice.
SliceId OperatorTableBuilder::innermostOpAt(TimeNs at, const std::function<bool(std::uint32_t)>& onThread) const
{
    const auto& slices = m_trace.slices();
    SliceId best = kNoSlice;
    const auto consider = [&](SliceId s) {
        if (!isCpuEvent(s) || idOf(s) == kNoId)
            return;
        const Overhead* overhead = overheadOf(s);
        if (!onThread(overhead ? overhead->track : m_trace.trackOf(s)))
            return;
        if (best == kNoSlice
            || std::tuple(-slices.start[s], slices.end(s), s) < std::tuple(-slices.start[best], slices.end(best), best))
            best = s;
    };
    const auto& tracks = m_trace.tracks();
    for (std::uint32_t t = 0; t < tracks.size(); ++t) {
        if (!onThread(t))
            continue;
        for (std::uint32_t row = tracks[t].rowBegin; row < tracks[t].rowEnd; ++row) {
            if (const SliceId s = m_trace.sliceAt(row, at); s != kNoSlice)
                consider(s);
        }
    }
    for (const Overhead& o : m_overheads) { // those nested on another thread than their own
        if (o.track != m_trace.trackOf(o.slice) && slices.start[o.slice] <= at && at < slices.end(o.slice))
            consider(o.slice);
    }
    return best;
}

const OperatorTableBuilder::Overhead* OperatorTableBuilder::overheadOf(SliceId s) const
{
    const auto it = std::lower_bound(m_overheads.begin(), m_overheads.end(), s,
                                     [](const Overhead& o, SliceId slice) { return o.slice < slice; });
    return it != m_overheads.end() && it->slice == s ? &*it : nullptr;
}

std::int64_t OperatorTableBuilder::idOf(SliceId s) const
{
    switch (m_trace.classOf(s)) {
    case SliceClass::CpuOp:
    case SliceClass::UserAnnotation: return m_trace.slices().externalId[s];
    case SliceClass::Overhead: {
        const Overhead* o = overheadOf(s);
        return o ? o->id : kNoId;
    }
    default: return kNoId;
    }
}

// A GPU activity counts for the op whose External id its launching runtime or driver call
// carries (joined through the CUPTI correlation id); the activity's own External id is the
// fallback. GPU-side annotations are not credited to their CPU range.
void OperatorTableBuilder::creditLaunches()
{
    const auto& slices = m_trace.slices();
    for (const SliceId s : m_deviceEvents) {
        if (!isDeviceActivity(m_trace.classOf(s)))
            continue;
        std::int64_t external = slices.externalId[s];
        if (const SliceId launch = m_links.launchOf(s); launch != kNoSlice && slices.externalId[launch] != kNoId)
            external = slices.externalId[launch];
        if (external == kNoId)
            continue;
        Launched launched{slices.duration[s], 0, 0};
        if (m_trace.classOf(s) == SliceClass::Kernel) {
            launched.kernels = 1;
            launched.tensorCoreKernels = usesTensorCores(slices.name[s]) ? 1 : 0;
        }
        m_launched.emplace_back(external, launched);
    }
    std::sort(m_launched.begin(), m_launched.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t kept = 0; // one entry per id, compacted in place (kept never passes the entry read)
    for (const auto& [id, launched] : m_launched) {
        if (kept > 0 && m_launched[kept - 1].first == id)
            m_launched[kept - 1].second += launched;
        else
            m_launched[kept++] = {id, launched};
    }
    m_launched.resize(kept);
    m_launched.shrink_to_fit();
}

bool OperatorTableBuilder::usesTensorCores(StringId kernelName)
{
    if (m_tensorCoresOfName.empty())
        m_tensorCoresOfName.assign(m_trace.strings().size(), -1);
    std::int8_t& known = m_tensorCoresOfName[kernelName];
    if (known < 0)
        known = gpu::usesTensorCores(m_trace.str(kernelName)) ? 1 : 0;
    return known != 0;
}

Launched OperatorTableBuilder::launchedBy(std::int64_t externalId) const
{
    if (externalId == kNoId)
        return {};
    const auto it = std::lower_bound(m_launched.begin(), m_launched.end(), externalId,
                                     [](const auto& entry, std::int64_t id) { return entry.first < id; });
    return it != m_launched.end() && it->first == externalId ? it->second : Launched{};
}

bool OperatorTableBuilder::inTorchOrder(SliceId a, SliceId b) const
{
    const auto& slices = m_trace.slices();
    return std::tuple(slices.start[a], -slices.end(a), a) < std::tuple(slices.start[b], -slices.end(b), b);
}

SliceId OperatorTableBuilder::nextNestedOp(SliceId s, SliceId end) const
{
    while (s < end && !(isCpuEvent(s) && m_trace.classOf(s) != SliceClass::Overhead))
        ++s;
    return s;
}

// A thread's events in torch's order come from a merge of its rows (each already in that
// order, through a heap of one cursor per row) and the overheads that ran in its ops, instead
// of a sorted copy of them all.
void OperatorTableBuilder::startThread(std::uint32_t track)
{
    const Track& t = m_trace.tracks()[track];
    m_rowCursors.clear();
    for (std::uint32_t r = t.rowBegin; r < t.rowEnd; ++r) {
        const Row& row = m_trace.rows()[r];
        if (const SliceId first = nextNestedOp(row.begin, row.end); first < row.end)
            m_rowCursors.push_back({first, row.end});
    }
    std::make_heap(m_rowCursors.begin(), m_rowCursors.end(), laterRow());
    m_trackOverheads.clear();
    for (const Overhead& o : m_overheads) {
        if (o.track == track)
            m_trackOverheads.push_back(o.slice);
    }
    std::sort(m_trackOverheads.begin(), m_trackOverheads.end(),
              [this](SliceId a, SliceId b) { return inTorchOrder(a, b); });
    m_nextOverhead = 0;
}

SliceId OperatorTableBuilder::nextThreadEvent()
{
    const bool overheadFirst = m_nextOverhead < m_trackOverheads.size()
        && (m_rowCursors.empty() || inTorchOrder(m_trackOverheads[m_nextOverhead], m_rowCursors.front().at));
    if (overheadFirst)
        return m_trackOverheads[m_nextOverhead++];
    if (m_rowCursors.empty())
        return kNoSlice;
    std::pop_heap(m_rowCursors.begin(), m_rowCursors.end(), laterRow());
    RowCursor& row = m_rowCursors.back();
    const SliceId s = row.at;
    row.at = nextNestedOp(row.at + 1, row.end);
    if (row.at < row.end)
        std::push_heap(m_rowCursors.begin(), m_rowCursors.end(), laterRow());
    else
        m_rowCursors.pop_back();
    return s;
}

// torch's _populate_cpu_children: per thread, by (start, -end), an event is the child of
// the innermost open event that contains it; partial overlaps get no parent.
void OperatorTableBuilder::nestTrack(std::uint32_t track)
{
    const auto& slices = m_trace.slices();
    startThread(track);
    for (SliceId s = nextThreadEvent(); s != kNoSlice; s = nextThreadEvent()) {
        const TimeNs start = slices.start[s], end = slices.end(s);
        while (!m_open.empty() && (start >= m_open.back().op.end || end > m_open.back().op.end))
            close();
        m_open.push_back({open(s), {}});
    }
    while (!m_open.empty())
        close();
}

OperatorTableBuilder::Op OperatorTableBuilder::open(SliceId s) const
{
    Op op;
    op.slice = s;
    op.start = m_trace.slices().start[s];
    op.end = m_trace.slices().end(s);
    op.own = launchedBy(idOf(s));
    op.memory = m_memory.within(op.start, op.end); // torch: the [memory] events in [start, end], any thread
    return op;
}

// The op on top of the stack has all its children: fold its only child if that has its name
// (the parent takes over the child's children and GPU time), then hand it to its parent.
void OperatorTableBuilder::close()
{
    Op op = m_open.back().op;
    const Op& only = m_open.back().firstChild;
    const auto& names = m_trace.slices().name;
    if (op.childCount == 1 && names[only.slice] == names[op.slice]) {
        op.own = only.own;
        op.children = only.children;
        op.childCpu = only.childCpu;
        op.childMemory = only.childMemory;
        op.childCount = only.childCount;
    } else if (op.childCount == 1) {
        count(only);
    }
    m_open.pop_back();
    if (m_open.empty()) {
        count(op);
        addRootSpan(op.start, op.end);
        return;
    }
    Frame& parent = m_open.back();
    parent.op.childCpu = saturatingAdd(parent.op.childCpu, op.end - op.start);
    parent.op.children += op.total();
    parent.op.childMemory += op.memory;
    if (++parent.op.childCount == 1) {
        parent.firstChild = op;
        return;
    }
    if (parent.op.childCount == 2)
        count(parent.firstChild);
    count(op);
}

// Ops nest inside the outermost ones of their thread, so those cover every op's [start, end].
void OperatorTableBuilder::addRootSpan(TimeNs start, TimeNs end)
{
    if (!m_rootSpans.empty() && start >= m_rootSpans.back().first && start <= m_rootSpans.back().second)
        m_rootSpans.back().second = std::max(m_rootSpans.back().second, end);
    else
        m_rootSpans.emplace_back(start, end);
}

void OperatorTableBuilder::count(const Op& op)
{
    if (!inRange(op.start))
        return;
    const auto& slices = m_trace.slices();
    const bool annotation = m_trace.classOf(op.slice) == SliceClass::UserAnnotation;
    std::size_t index = 0;
    if (m_options.groupByInputShapes) {
        const auto shapes = m_shapesOfOp.find(op.slice);
        index = rowFor(torchKey(m_trace.str(slices.name[op.slice])), false, annotation,
                       shapes != m_shapesOfOp.end() ? shapes->second : m_noShapes);
    } else {
        index = rowOfName(slices.name[op.slice], false, annotation);
    }
    if (index == m_firstCounted.size())
        m_firstCounted.emplace_back(op.start, op.slice);
    m_firstCounted[index] = std::min(m_firstCounted[index], std::pair(op.start, op.slice));
    OperatorRow& row = m_table.rows[index];
    const TimeNs cpu = op.end - op.start;
    const Launched total = op.total();
    ++row.calls;
    const TimeNs selfCpu = saturatingSubtract(cpu, op.childCpu);
    row.cpuTotal = saturatingAdd(row.cpuTotal, cpu);
    row.selfCpu = saturatingAdd(row.selfCpu, selfCpu);
    row.deviceTotal = saturatingAdd(row.deviceTotal, total.time);
    row.selfDevice = saturatingAdd(row.selfDevice, op.own.time);
    addMemory(row, op.memory, op.memory - op.childMemory);
    row.kernels += total.kernels;
    row.tensorCoreKernels += total.tensorCoreKernels;
    row.slices.push_back(op.slice);
    m_table.selfCpuTotal = saturatingAdd(m_table.selfCpuTotal, selfCpu);
}

// Rows appear in time order of their first occurrence (ties in slice order), and each row's
// occurrences by start: threads were nested one after the other, each op counted on closing.
void OperatorTableBuilder::orderCpuRows()
{
    auto& rows = m_table.rows;
    const auto& starts = m_trace.slices().start;
    for (auto& row : rows) {
        std::sort(row.slices.begin(), row.slices.end(),
                  [&](SliceId a, SliceId b) { return std::pair(starts[a], a) < std::pair(starts[b], b); });
    }
    std::vector<std::uint32_t> order(rows.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return m_firstCounted[a] < m_firstCounted[b]; });
    std::vector<OperatorRow> ordered;
    ordered.reserve(rows.size());
    for (const auto i : order)
        ordered.push_back(std::move(rows[i]));
    rows = std::move(ordered);
    m_rowIndex.clear(); // the rows that follow have keys of their own ([memory], GPU side)
    m_rowOfName.clear(); // and the rows were reordered
}

void OperatorTableBuilder::countUnmatchedMemory()
{
    std::sort(m_rootSpans.begin(), m_rootSpans.end());
    std::size_t span = 0;
    TimeNs coveredUntil = std::numeric_limits<TimeNs>::min();
    for (std::size_t i = 0; i < m_memory.size(); ++i) {
        const TimeNs time = m_memory.time(i);
        for (; span < m_rootSpans.size() && m_rootSpans[span].first <= time; ++span)
            coveredUntil = std::max(coveredUntil, m_rootSpans[span].second);
        if (coveredUntil >= time || !inRange(time))
            continue;
        const MemoryBytes bytes = m_memory.bytes(i);
        OperatorRow& row = m_table.rows[rowFor("[memory]", false, false, m_noShapes)];
        ++row.calls;
        addMemory(row, bytes, bytes);
    }
}

void OperatorTableBuilder::countDeviceEvents()
{
    const auto& slices = m_trace.slices();
    std::erase_if(m_deviceEvents, [&](SliceId s) { return !inRange(slices.start[s]); });
    std::stable_sort(m_deviceEvents.begin(), m_deviceEvents.end(),
                     [&](SliceId a, SliceId b) { return slices.start[a] < slices.start[b]; });
    for (const SliceId s : m_deviceEvents) {
        const bool annotation = m_trace.classOf(s) == SliceClass::GpuUserAnnotation;
        OperatorRow& row = m_table.rows[rowOfName(slices.name[s], true, annotation)];
        ++row.calls;
        row.selfDevice = saturatingAdd(row.selfDevice, slices.duration[s]);
        row.deviceTotal = saturatingAdd(row.deviceTotal, slices.duration[s]);
        if (m_trace.classOf(s) == SliceClass::Kernel) {
            ++row.kernels;
            row.tensorCoreKernels += usesTensorCores(slices.name[s]) ? 1 : 0;
        }
        row.slices.push_back(s);
        if (!annotation)
            m_table.selfDeviceTotal = saturatingAdd(m_table.selfDeviceTotal, slices.duration[s]);
    }
}

std::size_t OperatorTableBuilder::rowOfName(StringId name, bool device, bool annotation)
{
    const std::uint64_t key =
        std::uint64_t(name) << 2 | std::uint64_t(device ? 2 : 0) | std::uint64_t(annotation ? 1 : 0);
    const auto [it, inserted] = m_rowOfName.try_emplace(key, 0);
    if (inserted)
        it->second = rowFor(torchKey(m_trace.str(name)), device, annotation, m_noShapes);
    return it->second;
}

std::size_t OperatorTableBuilder::rowFor(std::string name, bool device, bool annotation, std::string shapes)
{
    std::string key = name;
    key += '\0';
    key += device ? 'd' : 'c';
    key += annotation ? 'a' : 'o';
    key += shapes;
    auto [it, inserted] = m_rowIndex.try_emplace(std::move(key), m_table.rows.size());
    if (inserted) {
        OperatorRow row;
        row.name = std::move(name);
        row.inputShapes = std::move(shapes);
        row.isDevice = device;
        row.isUserAnnotation = annotation;
        m_table.rows.push_back(std::move(row));
    }
    return it->second;
}

} // namespace

bool keyAveragesSkips(std::string_view name)
{
    return std::find(std::begin(kFilteredNames), std::end(kFilteredNames), name) != std::end(kFilteredNames);
}

OperatorTable computeOperatorTable(const facts::TraceFacts& facts, const OperatorTableOptions& options)
{
    return OperatorTableBuilder(*facts.trace, facts.links, facts.memory, options).build();
}

OperatorTable computeOperatorTable(const Trace& trace, const OperatorTableOptions& options)
{
    const facts::CorrelationIndex links(trace, facts::classifySlices(trace));
    const MemoryTimeline memory(trace);
    return OperatorTableBuilder(trace, links, memory, options).build();
}

std::optional<OperatorSortKey> operatorSortKeyFromName(std::string_view name)
{
    static const std::pair<std::string_view, OperatorSortKey> kNames[] = {
        {"name", OperatorSortKey::Name},
        {"calls", OperatorSortKey::Calls},
        {"count", OperatorSortKey::Calls},
        {"self_cpu", OperatorSortKey::SelfCpu},
        {"self_cpu_time_total", OperatorSortKey::SelfCpu},
        {"cpu_total", OperatorSortKey::CpuTotal},
        {"cpu_time_total", OperatorSortKey::CpuTotal},
        {"cpu_avg", OperatorSortKey::CpuAverage},
        {"cpu_time", OperatorSortKey::CpuAverage},
        {"self_cuda", OperatorSortKey::SelfDevice},
        {"self_device", OperatorSortKey::SelfDevice},
        {"self_cuda_time_total", OperatorSortKey::SelfDevice},
        {"self_device_time_total", OperatorSortKey::SelfDevice},
        {"cuda_total", OperatorSortKey::DeviceTotal},
        {"device_total", OperatorSortKey::DeviceTotal},
        {"cuda_time_total", OperatorSortKey::DeviceTotal},
        {"device_time_total", OperatorSortKey::DeviceTotal},
        {"cuda_avg", OperatorSortKey::DeviceAverage},
        {"device_avg", OperatorSortKey::DeviceAverage},
        {"cuda_time", OperatorSortKey::DeviceAverage},
        {"device_time", OperatorSortKey::DeviceAverage},
        {"cpu_memory_usage", OperatorSortKey::CpuMemory},
        {"self_cpu_memory_usage", OperatorSortKey::SelfCpuMemory},
        {"cuda_memory_usage", OperatorSortKey::DeviceMemory},
        {"device_memory_usage", OperatorSortKey::DeviceMemory},
        {"self_cuda_memory_usage", OperatorSortKey::SelfDeviceMemory},
        {"self_device_memory_usage", OperatorSortKey::SelfDeviceMemory},
    };
    for (const auto& [text, key] : kNames) {
        if (text == name)
            return key;
    }
    return std::nullopt;
}

void sortOperatorRows(std::vector<OperatorRow>& rows, OperatorSortKey key)
{
    if (key == OperatorSortKey::Name) {
        std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
        return;
    }
    const auto value = [key](const OperatorRow& r) -> std::int64_t {
        switch (key) {
        case OperatorSortKey::Calls: return static_cast<std::int64_t>(r.calls);
        case OperatorSortKey::SelfCpu: return r.selfCpu;
        case OperatorSortKey::CpuTotal: return r.cpuTotal;
        case OperatorSortKey::CpuAverage: return r.cpuAverage();
        case OperatorSortKey::SelfDevice: return r.selfDevice;
        case OperatorSortKey::DeviceTotal: return r.deviceTotal;
        case OperatorSortKey::DeviceAverage: return r.deviceAverage();
        case OperatorSortKey::CpuMemory: return r.cpuMemory;
        case OperatorSortKey::SelfCpuMemory: return r.selfCpuMemory;
        case OperatorSortKey::DeviceMemory: return r.deviceMemory;
        case OperatorSortKey::SelfDeviceMemory: return r.selfDeviceMemory;
        case OperatorSortKey::Name: break;
        }
        return 0;
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) { return value(a) > value(b); });
}

} // namespace ks
