#include "core/stats/operatortable.h"

#include "core/analysis/tracefacts.h"
#include "core/gpu/tensorcores.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace ks {

namespace {

// torch's _filter_name: utility ops that key_averages() never lists.
bool isFilteredName(std::string_view name)
{
    static constexpr std::string_view kFiltered[] = {
        "[memory]",
        "[OutOfMemory]",
        "profiler::_record_function_enter",
        "profiler::_record_function_enter_new",
        "profiler::_record_function_exit",
        "aten::is_leaf",
        "aten::output_nr",
        "aten::_version",
    };
    return std::find(std::begin(kFiltered), std::end(kFiltered), name) != std::end(kFiltered);
}

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

// A number from the args, or `fallback` when it is missing or of another type (value()
// would throw on a string).
std::int64_t integerArg(const nlohmann::json& args, const char* key, std::int64_t fallback)
{
    const auto it = args.find(key);
    return it != args.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
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

class OperatorTableBuilder {
public:
    OperatorTableBuilder(const Trace& trace, const analysis::CorrelationIndex& links,
                         const OperatorTableOptions& options)
        : m_trace(trace)
        , m_links(links)
        , m_options(options)
    {
    }
    OperatorTable build();

private:
    // One CPU-side event: 40 bytes, since a large trace has hundreds of thousands and they
    // are this table's transient. What the model holds is read from it (times, the External
    // id); only an overhead's linked id is kept, in m_overheadIds.
    struct Node {
        SliceId slice = kNoSlice;
        std::uint32_t track = 0; // the thread torch nests it on
        std::uint32_t parent = kNoIndex;
        // Children as a list threaded through the nodes (no allocation per node: a vector
        // each made the table's scratch half again as large).
        std::uint32_t firstChild = kNoIndex, nextSibling = kNoIndex;
        std::uint32_t childCount : 31 = 0;
        std::uint32_t alive : 1 = 1; // 0 once folded into its parent
        // GPU time and kernels launched by this op; computeDeviceTotals adds its children's.
        TimeNs deviceTime = 0;
        std::uint32_t kernels = 0, tensorCoreKernels = 0;
    };
    struct Memory {
        std::int64_t cpu = 0, device = 0;
    };

    void collectEvents();
    void linkOverheads();
    void attributeDeviceTime();
    void buildTrees();
    void foldSameNameChildren();
    void computeDeviceTotals();
    void computeMemory();
    void aggregate();
    // Calls f(child index) for every child of `n`.
    template <class F>
    void forEachChild(const Node& n, F f) const
    {
        for (std::uint32_t c = n.firstChild; c != kNoIndex; c = m_nodes[c].nextSibling)
            f(c);
    }
    TimeNs startOf(const Node& n) const { return m_trace.slices().start[n.slice]; }
    TimeNs endOf(const Node& n) const { return m_trace.slices().end(n.slice); }
    bool inRange(TimeNs start) const { return start >= m_options.rangeStart && start < m_options.rangeEnd; }
    // The op's External id (torch's correlation id of the op); kNoId for runtime and driver
    // calls; an overhead's is that of the op it ran in (linkOverheads).
    std::int64_t idOf(std::uint32_t node) const;
    // The [memory] events within the node's [start, end] (indices into m_memory), and their bytes.
    std::pair<std::size_t, std::size_t> memoryEventsWithin(const Node& n) const;
    Memory memoryOf(const Node& n) const;
    OperatorRow& rowFor(std::string name, bool device, bool annotation, std::string shapes);

    const Trace& m_trace;
    const analysis::CorrelationIndex& m_links;
    const OperatorTableOptions& m_options;
    std::vector<Node> m_nodes; // CPU-side events
    std::vector<std::uint32_t> m_order; // m_nodes by (track, start, -end)
    std::vector<SliceId> m_deviceEvents;
    std::vector<std::uint32_t> m_overheads;
    std::unordered_map<std::uint32_t, std::int64_t> m_overheadIds; // node -> id of the op it ran in
    std::vector<std::pair<TimeNs, Memory>> m_memory; // [memory] events by time
    std::vector<Memory> m_memoryBefore; // prefix sums of m_memory: bytes of the events before i
    std::vector<std::uint8_t> m_memoryMatched;
    OperatorTable m_table;
    std::unordered_map<std::string, std::size_t> m_rowIndex;
};

OperatorTable OperatorTableBuilder::build()
{
    collectEvents();
    linkOverheads();
    attributeDeviceTime();
    buildTrees();
    computeMemory(); // every event torch parsed, folded ones too, covers [memory] events
    foldSameNameChildren();
    computeDeviceTotals();
    aggregate();
    return std::move(m_table);
}

void OperatorTableBuilder::collectEvents()
{
    const auto& slices = m_trace.slices();
    std::size_t cpuSlices = 0; // exact room: growing by doubling would briefly hold twice the nodes
    for (SliceId s = 0; s < slices.size(); ++s)
        cpuSlices += isCpuClass(m_trace.classOf(s)) ? 1 : 0;
    m_nodes.reserve(cpuSlices);
    for (SliceId s = 0; s < slices.size(); ++s) {
        const SliceClass c = m_trace.classOf(s);
        if (isFilteredName(m_trace.str(slices.name[s])))
            continue;
        if (isDeviceActivity(c) || c == SliceClass::GpuUserAnnotation) {
            m_deviceEvents.push_back(s);
            m_table.hasDeviceTime = true;
        } else if (isCpuClass(c)) {
            Node n;
            n.slice = s;
            n.track = m_trace.trackOf(s);
            if (c == SliceClass::Overhead)
                m_overheads.push_back(static_cast<std::uint32_t>(m_nodes.size()));
            m_nodes.push_back(n);
        }
    }
}

// CUPTI overhead records (e.g. "Activity Buffer Request") carry no ids in the JSON, but torch
// links each to the op that was running when CUPTI asked for the buffer: the overhead is
// nested under that op on its thread and is credited with that op's GPU time as well. The op
// is the innermost enclosing one on the overhead's own thread, never on another thread: the
// CPU thread with the overhead's tid, else (kineto writes the overhead row as pid -1, tid 0)
// the main thread of a host process (tid == pid).
void OperatorTableBuilder::linkOverheads()
{
    const auto& tracks = m_trace.tracks();
    const auto isMainThread = [&](std::uint32_t t) {
        const JsonId& pid = m_trace.processes()[tracks[t].process].pid;
        return !pid.isText && !tracks[t].tid.isText && tracks[t].tid.number == pid.number;
    };
    for (const auto o : m_overheads) {
        Node& overhead = m_nodes[o];
        const TimeNs at = startOf(overhead);
        const JsonId ownTid = tracks[overhead.track].tid;
        const auto innermost = [&](const auto& onThread) {
            std::uint32_t best = kNoIndex;
            for (std::uint32_t i = 0; i < m_nodes.size(); ++i) {
                const Node& n = m_nodes[i];
                const TimeNs start = startOf(n), end = endOf(n);
                if (start > at || end <= at || !onThread(n.track) || idOf(i) == kNoId)
                    continue;
                const TimeNs bestStart = best == kNoIndex ? 0 : startOf(m_nodes[best]);
                if (best == kNoIndex || start > bestStart || (start == bestStart && end < endOf(m_nodes[best])))
                    best = i;
            }
            return best;
        };
        std::uint32_t best = innermost([&](std::uint32_t t) {
            return t != overhead.track && tracks[t].kind == TrackKind::CpuThread && tracks[t].tid == ownTid;
        });
        if (best == kNoIndex)
            best = innermost(isMainThread);
        if (best != kNoIndex) {
            m_overheadIds[o] = idOf(best);
            overhead.track = m_nodes[best].track;
        }
    }
}

// A GPU activity counts for the op whose External id its launching runtime or driver call
// carries (joined through the CUPTI correlation id); the activity's own External id is the
// fallback. GPU-side annotations are not credited to their CPU range.
void OperatorTableBuilder::attributeDeviceTime()
{
    const auto& slices = m_trace.slices();
    struct Launched {
        TimeNs time = 0;
        std::uint32_t kernels = 0, tensorCoreKernels = 0;
    };
    std::unordered_map<std::int64_t, Launched> launchedByExternal;
    for (const SliceId s : m_deviceEvents) {
        if (!isDeviceActivity(m_trace.classOf(s)))
            continue;
        std::int64_t external = slices.externalId[s];
        if (const SliceId launch = m_links.launchOf(s); launch != kNoSlice && slices.externalId[launch] != kNoId)
            external = slices.externalId[launch];
        if (external == kNoId)
            continue;
        Launched& launched = launchedByExternal[external];
        launched.time += slices.duration[s];
        if (m_trace.classOf(s) == SliceClass::Kernel) {
            ++launched.kernels;
            launched.tensorCoreKernels += gpu::usesTensorCores(m_trace.str(slices.name[s])) ? 1 : 0;
        }
    }
    for (std::uint32_t i = 0; i < m_nodes.size(); ++i) {
        const std::int64_t id = idOf(i);
        if (id == kNoId)
            continue;
        if (auto it = launchedByExternal.find(id); it != launchedByExternal.end()) {
            Node& n = m_nodes[i];
            n.deviceTime = it->second.time;
            n.kernels = it->second.kernels;
            n.tensorCoreKernels = it->second.tensorCoreKernels;
        }
    }
}

// torch's _populate_cpu_children: per thread, by (start, -end), an event is the child of
// the innermost open event that contains it; partial overlaps get no parent.
void OperatorTableBuilder::buildTrees()
{
    m_order.resize(m_nodes.size());
    std::iota(m_order.begin(), m_order.end(), 0u);
    std::sort(m_order.begin(), m_order.end(), [&](std::uint32_t a, std::uint32_t b) {
        const Node& x = m_nodes[a];
        const Node& y = m_nodes[b];
        return std::tuple(x.track, startOf(x), -endOf(x), a) < std::tuple(y.track, startOf(y), -endOf(y), b);
    });
    std::vector<std::uint32_t> stack;
    std::uint32_t track = kNoIndex;
    for (const auto i : m_order) {
        Node& n = m_nodes[i];
        if (n.track != track) {
            stack.clear();
            track = n.track;
        }
        while (!stack.empty()) {
            Node& parent = m_nodes[stack.back()];
            if (startOf(n) >= endOf(parent) || endOf(n) > endOf(parent)) {
                stack.pop_back();
            } else {
                n.nextSibling = parent.firstChild;
                parent.firstChild = i;
                ++parent.childCount;
                n.parent = stack.back();
                break;
            }
        }
        stack.push_back(i);
    }
}

// torch's _remove_dup_nodes: an op whose only child has its own name (aten::pow calling
// aten::pow) is listed once; the parent takes over the child's children and GPU time.
void OperatorTableBuilder::foldSameNameChildren()
{
    const auto& names = m_trace.slices().name;
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto i : m_order) {
            Node& n = m_nodes[i];
            if (!n.alive || n.parent == kNoIndex)
                continue;
            Node& parent = m_nodes[n.parent];
            if (names[parent.slice] != names[n.slice] || parent.childCount != 1)
                continue;
            parent.firstChild = n.firstChild;
            parent.childCount = n.childCount;
            parent.deviceTime = n.deviceTime;
            parent.kernels = n.kernels;
            parent.tensorCoreKernels = n.tensorCoreKernels;
            forEachChild(n, [&](std::uint32_t c) { m_nodes[c].parent = n.parent; });
            n.alive = 0;
            changed = true;
        }
    }
}

void OperatorTableBuilder::computeDeviceTotals()
{
    // Children sort after their parents, so one reverse pass sees every child first.
    // Reverse iterators, not std::views::reverse: clang 14 (the fuzz build) cannot compile
    // libstdc++ 12's ranges, and that view is modernize-loop-convert's only fix.
    for (auto it = m_order.rbegin(); it != m_order.rend(); ++it) { // NOLINT(modernize-loop-convert)
        Node& n = m_nodes[*it];
        forEachChild(n, [&](std::uint32_t c) {
            n.deviceTime += m_nodes[c].deviceTime;
            n.kernels += m_nodes[c].kernels;
            n.tensorCoreKernels += m_nodes[c].tensorCoreKernels;
        });
    }
}

// torch gives each CPU event the bytes of every [memory] event (any thread) inside
// [start, end]; the [memory] events that fall in no event become rows of their own.
void OperatorTableBuilder::computeMemory()
{
    const StringId memoryName = m_trace.strings().find("[memory]");
    const auto& instants = m_trace.instants();
    std::vector<std::uint32_t> memoryInstants;
    for (std::uint32_t i = 0; i < instants.size(); ++i) {
        if (instants.name[i] == memoryName)
            memoryInstants.push_back(i);
    }
    m_memory.reserve(memoryInstants.size());
    m_trace.forEachInstantText(memoryInstants, [&](std::uint32_t i, std::string_view text) {
        const auto event = parseEventText(text);
        const auto noArgs = nlohmann::json::object();
        const auto argsIt = event.is_object() ? event.find("args") : event.end();
        const auto& args = argsIt != event.end() && argsIt->is_object() ? *argsIt : noArgs;
        const std::int64_t bytes = integerArg(args, "Bytes", 0);
        const std::int64_t deviceType = integerArg(args, "Device Type", 0);
        // c10::DeviceType: CPU 0, MKLDNN 2, IDEEP 5 count as CPU; CUDA 1, HIP 6, PrivateUse1 20 as device.
        const bool cpu = deviceType == 0 || deviceType == 2 || deviceType == 5;
        const bool device = deviceType == 1 || deviceType == 6 || deviceType == 20;
        m_memory.push_back({instants.time[i], {cpu ? bytes : 0, device ? bytes : 0}});
    });
    if (m_memory.empty())
        return;
    m_table.hasMemory = true;
    std::stable_sort(m_memory.begin(), m_memory.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    m_memoryBefore.resize(m_memory.size() + 1);
    for (std::size_t i = 0; i < m_memory.size(); ++i) {
        m_memoryBefore[i + 1].cpu = m_memoryBefore[i].cpu + m_memory[i].second.cpu;
        m_memoryBefore[i + 1].device = m_memoryBefore[i].device + m_memory[i].second.device;
    }
    std::vector<int> coverage(m_memory.size() + 1, 0);
    for (const auto& n : m_nodes) {
        const auto [lo, hi] = memoryEventsWithin(n);
        if (lo < hi) {
            ++coverage[lo];
            --coverage[hi];
        }
    }
    m_memoryMatched.resize(m_memory.size());
    int open = 0;
    for (std::size_t i = 0; i < m_memory.size(); ++i) {
        open += coverage[i];
        m_memoryMatched[i] = open > 0;
    }
}

std::pair<std::size_t, std::size_t> OperatorTableBuilder::memoryEventsWithin(const Node& n) const
{
    const auto byTime = [](const auto& record, TimeNs t) { return record.first < t; };
    const auto timeBefore = [](TimeNs t, const auto& record) { return t < record.first; };
    const auto lo = std::lower_bound(m_memory.begin(), m_memory.end(), startOf(n), byTime) - m_memory.begin();
    const auto hi = std::upper_bound(m_memory.begin(), m_memory.end(), endOf(n), timeBefore) - m_memory.begin();
    return {static_cast<std::size_t>(lo), static_cast<std::size_t>(std::max(lo, hi))};
}

OperatorTableBuilder::Memory OperatorTableBuilder::memoryOf(const Node& n) const
{
    if (m_memory.empty())
        return {};
    const auto [lo, hi] = memoryEventsWithin(n);
    return {m_memoryBefore[hi].cpu - m_memoryBefore[lo].cpu, m_memoryBefore[hi].device - m_memoryBefore[lo].device};
}

std::int64_t OperatorTableBuilder::idOf(std::uint32_t node) const
{
    const SliceId slice = m_nodes[node].slice;
    switch (m_trace.classOf(slice)) {
    case SliceClass::CpuOp:
    case SliceClass::UserAnnotation: return m_trace.slices().externalId[slice];
    case SliceClass::Overhead: {
        const auto it = m_overheadIds.find(node);
        return it != m_overheadIds.end() ? it->second : kNoId;
    }
    default: return kNoId;
    }
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

OperatorRow& OperatorTableBuilder::rowFor(std::string name, bool device, bool annotation, std::string shapes)
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
    return m_table.rows[it->second];
}

void OperatorTableBuilder::aggregate()
{
    const auto& slices = m_trace.slices();
    const std::string noShapes = m_options.groupByInputShapes ? "[]" : "";
    // Rows appear in time order of their first occurrence (ties in slice order). The nodes
    // in m_order, which is done with, so that the table holds one index per node at most.
    std::vector<std::uint32_t> byStart = std::move(m_order);
    std::erase_if(byStart, [&](std::uint32_t i) { return !m_nodes[i].alive || !inRange(startOf(m_nodes[i])); });
    std::sort(byStart.begin(), byStart.end(), [&](std::uint32_t a, std::uint32_t b) {
        return std::pair(startOf(m_nodes[a]), a) < std::pair(startOf(m_nodes[b]), b);
    });
    std::unordered_map<SliceId, std::string> shapesOfOp;
    if (m_options.groupByInputShapes) {
        std::vector<SliceId> ops;
        for (const auto i : byStart) {
            if (m_trace.classOf(m_nodes[i].slice) == SliceClass::CpuOp)
                ops.push_back(m_nodes[i].slice);
        }
        m_trace.forEachEventText(ops, [&](SliceId s, std::string_view text) { shapesOfOp[s] = inputShapesOf(text); });
    }
    for (const auto i : byStart) {
        const Node& n = m_nodes[i];
        const SliceClass c = m_trace.classOf(n.slice);
        const auto shapesIt = shapesOfOp.find(n.slice);
        std::string shapes = shapesIt != shapesOfOp.end() ? shapesIt->second : noShapes;
        OperatorRow& row = rowFor(torchKey(m_trace.str(slices.name[n.slice])), false, c == SliceClass::UserAnnotation,
                                  std::move(shapes));
        TimeNs childCpu = 0, childDevice = 0;
        Memory childMemory;
        forEachChild(n, [&](std::uint32_t ch) {
            const Node& child = m_nodes[ch];
            childCpu += endOf(child) - startOf(child);
            childDevice += child.deviceTime;
            const Memory m = memoryOf(child);
            childMemory.cpu += m.cpu;
            childMemory.device += m.device;
        });
        const TimeNs cpu = endOf(n) - startOf(n);
        const TimeNs selfCpu = cpu - childCpu;
        const Memory memory = memoryOf(n);
        ++row.calls;
        row.cpuTotal += cpu;
        row.selfCpu += selfCpu;
        row.deviceTotal += n.deviceTime;
        row.selfDevice += n.deviceTime - childDevice;
        row.cpuMemory += memory.cpu;
        row.selfCpuMemory += memory.cpu - childMemory.cpu;
        row.deviceMemory += memory.device;
        row.selfDeviceMemory += memory.device - childMemory.device;
        row.kernels += n.kernels;
        row.tensorCoreKernels += n.tensorCoreKernels;
        row.slices.push_back(n.slice);
        m_table.selfCpuTotal += selfCpu;
    }
    for (std::size_t i = 0; i < m_memory.size(); ++i) {
        if (m_memoryMatched[i] || !inRange(m_memory[i].first))
            continue;
        OperatorRow& row = rowFor("[memory]", false, false, noShapes);
        ++row.calls;
        row.cpuMemory += m_memory[i].second.cpu;
        row.selfCpuMemory += m_memory[i].second.cpu;
        row.deviceMemory += m_memory[i].second.device;
        row.selfDeviceMemory += m_memory[i].second.device;
    }
    std::vector<SliceId> devices;
    for (const SliceId s : m_deviceEvents) {
        if (inRange(slices.start[s]))
            devices.push_back(s);
    }
    std::stable_sort(devices.begin(), devices.end(),
                     [&](SliceId a, SliceId b) { return slices.start[a] < slices.start[b]; });
    for (const SliceId s : devices) {
        const bool annotation = m_trace.classOf(s) == SliceClass::GpuUserAnnotation;
        OperatorRow& row = rowFor(torchKey(m_trace.str(slices.name[s])), true, annotation, noShapes);
        ++row.calls;
        row.selfDevice += slices.duration[s];
        row.deviceTotal += slices.duration[s];
        if (m_trace.classOf(s) == SliceClass::Kernel) {
            ++row.kernels;
            row.tensorCoreKernels += gpu::usesTensorCores(m_trace.str(slices.name[s])) ? 1 : 0;
        }
        row.slices.push_back(s);
        if (!annotation)
            m_table.selfDeviceTotal += slices.duration[s];
    }
}

} // namespace

OperatorTable computeOperatorTable(const analysis::TraceFacts& facts, const OperatorTableOptions& options)
{
    return OperatorTableBuilder(*facts.trace, facts.links, options).build();
}

OperatorTable computeOperatorTable(const Trace& trace, const OperatorTableOptions& options)
{
    const analysis::CorrelationIndex links(trace, gpu::classifySlices(trace));
    return OperatorTableBuilder(trace, links, options).build();
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
