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
    struct Node {
        SliceId slice = kNoSlice;
        std::uint32_t track = 0; // the thread torch nests it on
        TimeNs start = 0, end = 0;
        std::int64_t id = kNoId; // External id (torch's correlation id of the op)
        std::uint32_t parent = kNoIndex;
        // Children as a list threaded through the nodes (no allocation per node: a vector
        // each made the table's scratch half again as large).
        std::uint32_t firstChild = kNoIndex, nextSibling = kNoIndex, childCount = 0;
        bool alive = true;
        TimeNs kernels = 0; // GPU time launched directly by this op
        TimeNs deviceTotal = 0;
        std::uint32_t kernelCount = 0, tensorCoreKernels = 0; // launched directly
        std::uint64_t kernelTotal = 0, tensorCoreTotal = 0; // with the children's
        std::int64_t cpuMemory = 0, deviceMemory = 0;
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
    bool inRange(TimeNs start) const { return start >= m_options.rangeStart && start < m_options.rangeEnd; }
    OperatorRow& rowFor(std::string name, bool device, bool annotation, std::string shapes);

    const Trace& m_trace;
    const analysis::CorrelationIndex& m_links;
    const OperatorTableOptions& m_options;
    std::vector<Node> m_nodes; // CPU-side events
    std::vector<std::uint32_t> m_order; // m_nodes by (track, start, -end)
    std::vector<SliceId> m_deviceEvents;
    std::vector<std::uint32_t> m_overheads;
    std::vector<std::pair<TimeNs, std::pair<std::int64_t, std::int64_t>>> m_memory; // time, cpu/device bytes
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
    computeMemory(); // before folding: torch attributes memory to every event it parsed
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
            n.start = slices.start[s];
            n.end = slices.end(s);
            if (c == SliceClass::CpuOp || c == SliceClass::UserAnnotation)
                n.id = slices.externalId[s];
            else if (c == SliceClass::Overhead)
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
        const JsonId ownTid = tracks[overhead.track].tid;
        const auto innermost = [&](const auto& onThread) {
            const Node* best = nullptr;
            for (const auto& n : m_nodes) {
                if (n.id == kNoId || n.start > overhead.start || n.end <= overhead.start || !onThread(n.track))
                    continue;
                if (!best || n.start > best->start || (n.start == best->start && n.end < best->end))
                    best = &n;
            }
            return best;
        };
        const Node* best = innermost([&](std::uint32_t t) {
            return t != overhead.track && tracks[t].kind == TrackKind::CpuThread && tracks[t].tid == ownTid;
        });
        if (!best)
            best = innermost(isMainThread);
        if (best) {
            overhead.id = best->id;
            overhead.track = best->track;
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
    for (auto& n : m_nodes) {
        if (n.id == kNoId)
            continue;
        if (auto it = launchedByExternal.find(n.id); it != launchedByExternal.end()) {
            n.kernels = it->second.time;
            n.kernelCount = it->second.kernels;
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
        return std::tuple(x.track, x.start, -x.end, a) < std::tuple(y.track, y.start, -y.end, b);
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
            if (n.start >= parent.end || n.end > parent.end) {
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
            parent.kernels = n.kernels;
            parent.kernelCount = n.kernelCount;
            parent.tensorCoreKernels = n.tensorCoreKernels;
            forEachChild(n, [&](std::uint32_t c) { m_nodes[c].parent = n.parent; });
            n.alive = false;
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
        n.deviceTotal = n.kernels;
        n.kernelTotal = n.kernelCount;
        n.tensorCoreTotal = n.tensorCoreKernels;
        forEachChild(n, [&](std::uint32_t c) {
            n.deviceTotal += m_nodes[c].deviceTotal;
            n.kernelTotal += m_nodes[c].kernelTotal;
            n.tensorCoreTotal += m_nodes[c].tensorCoreTotal;
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
    std::vector<std::int64_t> cpuPrefix(m_memory.size() + 1, 0), devicePrefix(m_memory.size() + 1, 0);
    for (std::size_t i = 0; i < m_memory.size(); ++i) {
        cpuPrefix[i + 1] = cpuPrefix[i] + m_memory[i].second.first;
        devicePrefix[i + 1] = devicePrefix[i] + m_memory[i].second.second;
    }
    std::vector<int> coverage(m_memory.size() + 1, 0);
    const auto byTime = [](const auto& record, TimeNs t) { return record.first < t; };
    const auto timeBefore = [](TimeNs t, const auto& record) { return t < record.first; };
    for (auto& n : m_nodes) {
        const auto lo = std::lower_bound(m_memory.begin(), m_memory.end(), n.start, byTime) - m_memory.begin();
        const auto hi = std::upper_bound(m_memory.begin(), m_memory.end(), n.end, timeBefore) - m_memory.begin();
        if (lo >= hi)
            continue;
        n.cpuMemory = cpuPrefix[hi] - cpuPrefix[lo];
        n.deviceMemory = devicePrefix[hi] - devicePrefix[lo];
        ++coverage[lo];
        --coverage[hi];
    }
    m_memoryMatched.resize(m_memory.size());
    int open = 0;
    for (std::size_t i = 0; i < m_memory.size(); ++i) {
        open += coverage[i];
        m_memoryMatched[i] = open > 0;
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
    // Rows appear in time order of their first occurrence.
    std::vector<std::uint32_t> byStart;
    for (std::uint32_t i = 0; i < m_nodes.size(); ++i) {
        if (m_nodes[i].alive && inRange(m_nodes[i].start))
            byStart.push_back(i);
    }
    std::stable_sort(byStart.begin(), byStart.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return m_nodes[a].start < m_nodes[b].start; });
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
        std::int64_t childCpuMemory = 0, childDeviceMemory = 0;
        forEachChild(n, [&](std::uint32_t ch) {
            const Node& child = m_nodes[ch];
            childCpu += child.end - child.start;
            childDevice += child.deviceTotal;
            childCpuMemory += child.cpuMemory;
            childDeviceMemory += child.deviceMemory;
        });
        const TimeNs selfCpu = (n.end - n.start) - childCpu;
        ++row.calls;
        row.cpuTotal += n.end - n.start;
        row.selfCpu += selfCpu;
        row.deviceTotal += n.deviceTotal;
        row.selfDevice += n.deviceTotal - childDevice;
        row.cpuMemory += n.cpuMemory;
        row.selfCpuMemory += n.cpuMemory - childCpuMemory;
        row.deviceMemory += n.deviceMemory;
        row.selfDeviceMemory += n.deviceMemory - childDeviceMemory;
        row.kernels += n.kernelTotal;
        row.tensorCoreKernels += n.tensorCoreTotal;
        row.slices.push_back(n.slice);
        m_table.selfCpuTotal += selfCpu;
    }
    for (std::size_t i = 0; i < m_memory.size(); ++i) {
        if (m_memoryMatched[i] || !inRange(m_memory[i].first))
            continue;
        OperatorRow& row = rowFor("[memory]", false, false, noShapes);
        ++row.calls;
        row.cpuMemory += m_memory[i].second.first;
        row.selfCpuMemory += m_memory[i].second.first;
        row.deviceMemory += m_memory[i].second.second;
        row.selfDeviceMemory += m_memory[i].second.second;
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
