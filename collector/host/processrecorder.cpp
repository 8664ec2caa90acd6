#include "collector/host/processrecorder.h"

#include "collector/host/demangle.h"
#include "core/gpu/occupancy.h"

#include <algorithm>
#include <fstream>
#include <optional>

namespace ks::collector {
namespace {

std::string_view copyKindName(std::uint8_t kind)
{
    switch (kind) {
    case 1: return "HtoD";
    case 2: return "DtoH";
    case 3: return "HtoA";
    case 4: return "AtoH";
    case 5: return "AtoA";
    case 6: return "AtoD";
    case 7: return "DtoA";
    case 8: return "DtoD";
    case 9: return "HtoH";
    case 10: return "PtoP";
    default: return "Unknown";
    }
}

std::string_view memoryKindName(std::uint32_t kind)
{
    switch (kind) {
    case 1: return "Pageable";
    case 2: return "Pinned";
    case 3: return "Device";
    case 4: return "Array";
    case 5: return "Managed";
    case 6: return "Device Static";
    case 7: return "Managed Static";
    default: return "Unknown";
    }
}

std::string_view syncName(std::uint32_t type)
{
    switch (type) {
    case 1: return "Event Sync";
    case 2: return "Stream Wait Event";
    case 3: return "Stream Sync";
    case 4: return "Context Sync";
    default: return "Sync";
    }
}

std::string_view overheadName(std::uint32_t kind)
{
    switch (kind >> 16) {
    case 1: return "CUPTI Buffer Flush";
    case 2: return "CUPTI Instrumentation";
    case 3: return "CUPTI Resource";
    case 4: return "Runtime Triggered Module Loading";
    case 5: return "Lazy Function Loading";
    case 6: return "Command Buffer Full";
    case 7: return "Activity Buffer Request";
    case 8: return "UVM Activity Init";
    default: return kind == 1 ? "Driver Compiler" : "Overhead";
    }
}

// CUPTI callback names carry the API version ("cudaLaunchKernel_v7000", "cuMemcpyHtoD_v2").
std::string stripApiVersion(std::string name)
{
    const auto pos = name.rfind("_v");
    if (pos != std::string::npos && pos + 2 < name.size()
        && name.find_first_not_of("0123456789", pos + 2) == std::string::npos)
        name.resize(pos);
    return name;
}

double bandwidthGBs(std::uint64_t bytes, TimeNs duration)
{
    return duration > 0 ? static_cast<double>(bytes) / static_cast<double>(duration) : 0.0;
}

constexpr std::uint32_t kInvalid = 0xffffffffu;
constexpr std::string_view kUserAnnotation = "\"user_annotation\"";

std::string_view quotedCategory(EventCategory category)
{
    static const auto table = [] {
        std::vector<std::string> quoted;
        for (int c = 0; c <= static_cast<int>(EventCategory::GpuAnnotation); ++c)
            quoted.push_back(jsonQuoted(categoryName(static_cast<EventCategory>(c))));
        return quoted;
    }();
    return table[static_cast<std::size_t>(category)];
}

} // namespace

std::string procThreadName(std::int64_t pid, std::int64_t tid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
    std::string comm;
    std::getline(in, comm);
    return comm.empty() ? "thread " + std::to_string(tid) : "thread " + std::to_string(tid) + " (" + comm + ")";
}

ProcessRecorder::ProcessRecorder(wire::Hello hello, std::int64_t baseNs, std::shared_ptr<TextArena> arena,
                                 ThreadNamer threadNamer)
    : m_baseNs(baseNs)
    , m_arena(std::move(arena))
    , m_threadNamer(std::move(threadNamer))
{
    m_data.hello = std::move(hello);
    m_nameIndex.emplace(std::string(), 0);
    m_quotedNames.push_back(jsonQuoted(""));
}

template <class Record>
bool ProcessRecorder::decode(const wire::Frame& frame, Record& record)
{
    if (wire::decodePayload(frame.payload, record))
        return true;
    ++m_data.counts.badRecords;
    return false;
}

template <class Record>
bool ProcessRecorder::decodeInto(const wire::Frame& frame, void (ProcessRecorder::*handler)(const Record&))
{
    Record record;
    if (!decode(frame, record))
        return false;
    (this->*handler)(record);
    return true;
}

bool ProcessRecorder::handle(const wire::Frame& frame)
{
    using wire::RecordType;
    switch (frame.type) {
    case RecordType::String: return decodeInto(frame, &ProcessRecorder::onString);
    case RecordType::Device: return decodeInto(frame, &ProcessRecorder::onDevice);
    case RecordType::Kernel: return decodeInto(frame, &ProcessRecorder::onKernel);
    case RecordType::Memcpy: return decodeInto(frame, &ProcessRecorder::onMemcpy);
    case RecordType::Memset: return decodeInto(frame, &ProcessRecorder::onMemset);
    case RecordType::Api: return decodeInto(frame, &ProcessRecorder::onApi);
    case RecordType::Sync: return decodeInto(frame, &ProcessRecorder::onSync);
    case RecordType::Marker: return decodeInto(frame, &ProcessRecorder::onMarker);
    case RecordType::Overhead: return decodeInto(frame, &ProcessRecorder::onOverhead);
    case RecordType::Clock: {
        wire::Clock r;
        return decode(frame, r);
    }
    case RecordType::Dropped: return decode(frame, m_data.dropped);
    case RecordType::Error: {
        wire::Error r;
        if (!decode(frame, r))
            return false;
        addProcessInstant("Collector error: " + r.message, EventText().add("code", r.code));
        m_data.errors.push_back(std::move(r));
        return true;
    }
    case RecordType::Goodbye:
        if (!decode(frame, m_data.goodbye))
            return false;
        m_data.state = ConnectionState::Finished;
        return true;
    case RecordType::Hello: break;
    }
    ++m_data.counts.badRecords; // a second HELLO or a type from a newer protocol
    return false;
}

void ProcessRecorder::connectionClosed(bool byCollector)
{
    if (m_data.state == ConnectionState::Open && byCollector) {
        m_data.state = ConnectionState::Detached;
        addProcessInstant("Recording stopped",
                          EventText().addText("reason", "the collector stopped recording; the process ran on"));
    } else if (m_data.state == ConnectionState::Open) {
        m_data.state = ConnectionState::Terminated;
        addProcessInstant(
            "Process terminated",
            EventText().addText("reason", "the connection closed without GOODBYE: the process crashed or was killed"));
    }
    m_data.counts.unpairedMarkers += m_openMarkers.size();
    m_openMarkers.clear();
}

std::uint32_t ProcessRecorder::intern(std::string text)
{
    const auto [it, inserted] = m_nameIndex.emplace(text, static_cast<std::uint32_t>(m_data.names.size()));
    if (inserted) {
        m_quotedNames.push_back(jsonQuoted(text));
        m_data.names.push_back(std::move(text));
    }
    return it->second;
}

std::string ProcessRecorder::sliceText(const RecordedSlice& slice, const EventText& args) const
{
    return completeEventText(quotedCategory(slice.category), quotedName(slice.name), slice.pid, slice.tid, slice.start,
                             slice.duration, args);
}

void ProcessRecorder::onString(const wire::StringDef& s) { m_wireNames[s.id] = intern(s.text); }

std::uint32_t ProcessRecorder::wireName(std::uint32_t wireId) const
{
    const auto it = m_wireNames.find(wireId);
    return it == m_wireNames.end() ? 0 : it->second;
}

std::uint32_t ProcessRecorder::kernelName(std::uint32_t wireId)
{
    const auto it = m_kernelNames.find(wireId);
    if (it != m_kernelNames.end())
        return it->second;
    const std::uint32_t id = intern(demangleKernelName(m_data.names[wireName(wireId)]));
    m_kernelNames.emplace(wireId, id);
    return id;
}

std::uint32_t ProcessRecorder::apiName(std::uint32_t wireId)
{
    const auto it = m_apiNames.find(wireId);
    if (it != m_apiNames.end())
        return it->second;
    const std::uint32_t id = intern(stripApiVersion(m_data.names[wireName(wireId)]));
    m_apiNames.emplace(wireId, id);
    return id;
}

void ProcessRecorder::onDevice(const wire::Device& d)
{
    m_deviceProperties[d.id] = toDeviceProperties(d);
    for (auto& known : m_data.devices) {
        if (known.id == d.id) {
            known = d;
            return;
        }
    }
    m_data.devices.push_back(d);
}

std::uint32_t ProcessRecorder::addSlice(RecordedSlice slice, std::string_view text)
{
    const auto span = m_arena->append(text);
    slice.rawOffset = span.offset;
    slice.rawLength = span.length;
    m_data.slices.push_back(slice);
    m_lastTime = std::max(m_lastTime, slice.start + slice.duration);
    return static_cast<std::uint32_t>(m_data.slices.size() - 1);
}

bool ProcessRecorder::usableGpuTimes(std::int64_t start, std::int64_t end)
{
    if (start == 0 && end == 0) {
        ++m_data.counts.zeroTimestamps;
        return false;
    }
    if (end < start) { // a forced flush returned an op that was still running
        ++m_data.counts.unfinished;
        return false;
    }
    return true;
}

void ProcessRecorder::addGpuOp(RecordedSlice slice, const GpuOpInfo& info, std::string_view text,
                               std::uint32_t correlation)
{
    slice.gpuOp = static_cast<std::int32_t>(m_data.gpuOps.size());
    m_data.gpuOps.push_back(info);
    linkGpuSide(addSlice(slice, text), correlation);
}

// Either side of a correlation can arrive first (runtime and GPU records come in different
// buffers): the start of the flow is added once both the call and something it waits for
// or launched are known.
void ProcessRecorder::linkGpuSide(std::uint32_t slice, std::uint32_t correlation)
{
    m_data.flows.push_back({slice, false, correlation});
    Correlation& c = m_correlations[correlation];
    c.hasGpuOps = true;
    if (c.apiSlice >= 0 && !c.startAdded) {
        m_data.flows.push_back({static_cast<std::uint32_t>(c.apiSlice), true, correlation});
        c.startAdded = true;
    }
}

void ProcessRecorder::linkApiSide(std::uint32_t slice, std::uint32_t correlation)
{
    Correlation& c = m_correlations[correlation];
    c.apiSlice = static_cast<std::int32_t>(slice);
    if (c.hasGpuOps && !c.startAdded) {
        m_data.flows.push_back({slice, true, correlation});
        c.startAdded = true;
    }
}

namespace {

// kineto's args of a copy or a memset.
template <typename TransferRecord>
EventText transferArgs(const TransferRecord& r, TimeNs duration)
{
    EventText args;
    args.add("device", r.device)
        .add("context", r.context)
        .add("stream", r.stream)
        .add("correlation", r.correlation)
        .add("bytes", r.bytes)
        .add("memory bandwidth (GB/s)", bandwidthGBs(r.bytes, duration));
    return args;
}

} // namespace

// What kernels, copies and memsets share: usable times, the counter, the context's
// device, and the slice on (device, stream) with its correlation id.
template <typename GpuRecord>
bool ProcessRecorder::beginGpuOp(const GpuRecord& r, EventCategory category, std::uint64_t& counter,
                                 RecordedSlice& slice, GpuOpInfo& info)
{
    if (!usableGpuTimes(r.start, r.end))
        return false;
    ++counter;
    m_contextDevice[r.context] = r.device;
    slice.pid = r.device;
    slice.tid = r.stream;
    slice.start = relative(r.start);
    slice.duration = spanOf(r.start, r.end);
    slice.category = category;
    slice.correlation = r.correlation;
    info.device = static_cast<std::int32_t>(r.device);
    info.stream = r.stream;
    return true;
}

void ProcessRecorder::onKernel(const wire::Kernel& k)
{
    RecordedSlice slice;
    GpuOpInfo info;
    if (!beginGpuOp(k, EventCategory::Kernel, m_data.counts.kernels, slice, info))
        return;
    slice.name = kernelName(k.name);
    for (int i = 0; i < 3; ++i) {
        info.grid[i] = k.grid[i];
        info.block[i] = k.block[i];
    }
    info.registersPerThread = k.registersPerThread;
    info.sharedMemory = static_cast<std::int64_t>(k.staticSharedMemory) + k.dynamicSharedMemory;

    EventText args;
    args.add("queued", k.queued > 0 ? relative(k.queued) : 0)
        .add("device", k.device)
        .add("context", k.context)
        .add("stream", k.stream)
        .add("correlation", k.correlation)
        .add("registers per thread", k.registersPerThread)
        .add("shared memory", info.sharedMemory);
    const auto props = m_deviceProperties.find(k.device);
    std::optional<int> occupancy;
    if (props != m_deviceProperties.end()) {
        // Blocks per SM from the grid; nothing for launch values no GPU accepts.
        const auto launch = gpu::kernelLaunchOf(info, &props->second);
        if (launch && launch->blocksPerSm > 0.0) {
            const double warpsPerSm = gpu::warpsPerSm(*launch);
            info.blocksPerSm = static_cast<float>(launch->blocksPerSm);
            info.warpsPerSm = static_cast<float>(warpsPerSm);
            args.add("blocks per SM", launch->blocksPerSm).add("warps per SM", warpsPerSm);
            occupancy = gpu::estAchievedOccupancyPct(props->second, *launch);
        }
    }
    args.add("grid", k.grid).add("block", k.block);
    // A real cluster: every extent positive and one above 1 (no product: the record is untrusted).
    if (k.cluster[0] > 0 && k.cluster[1] > 0 && k.cluster[2] > 0
        && (k.cluster[0] > 1 || k.cluster[1] > 1 || k.cluster[2] > 1))
        args.add("cluster", k.cluster);
    if (occupancy) {
        info.estAchievedOccupancyPct = static_cast<float>(*occupancy);
        args.add("est. achieved occupancy %", *occupancy);
    }
    if (k.graphId != 0)
        args.add("graph id", k.graphId).add("graph node id", k.graphNodeId);
    addGpuOp(slice, info, sliceText(slice, args), k.correlation);
}

void ProcessRecorder::onMemcpy(const wire::Memcpy& m)
{
    RecordedSlice slice;
    GpuOpInfo info;
    if (!beginGpuOp(m, EventCategory::Memcpy, m_data.counts.memcpys, slice, info))
        return;
    slice.name =
        intern("Memcpy " + std::string(copyKindName(m.copyKind)) + " (" + std::string(memoryKindName(m.srcKind))
               + " -> " + std::string(memoryKindName(m.dstKind)) + ")");
    info.bytes = static_cast<std::int64_t>(m.bytes);
    EventText args = transferArgs(m, slice.duration);
    if (m.copyKind == 10)
        args.add("fromDevice", m.srcDevice).add("toDevice", m.dstDevice);
    addGpuOp(slice, info, sliceText(slice, args), m.correlation);
}

void ProcessRecorder::onMemset(const wire::Memset& m)
{
    RecordedSlice slice;
    GpuOpInfo info;
    if (!beginGpuOp(m, EventCategory::Memset, m_data.counts.memsets, slice, info))
        return;
    slice.name = intern("Memset (" + std::string(memoryKindName(m.memoryKind)) + ")");
    info.bytes = static_cast<std::int64_t>(m.bytes);
    EventText args = transferArgs(m, slice.duration);
    addGpuOp(slice, info, sliceText(slice, args), m.correlation);
}

void ProcessRecorder::noteThread(std::int64_t tid)
{
    if (m_knownThreads.emplace(tid, true).second)
        m_data.threadNames.emplace_back(tid, m_threadNamer(m_data.hello.pid, tid));
}

void ProcessRecorder::onApi(const wire::Api& a)
{
    ++m_data.counts.apiCalls;
    noteThread(static_cast<std::int64_t>(a.threadId));
    RecordedSlice slice;
    slice.pid = m_data.hello.pid;
    slice.tid = static_cast<std::int64_t>(a.threadId);
    slice.start = relative(a.start);
    slice.duration = spanOf(a.start, a.end);
    slice.name = apiName(a.name);
    slice.category =
        a.domain == static_cast<std::uint8_t>(wire::ApiDomain::Driver) ? EventCategory::Driver : EventCategory::Runtime;
    slice.correlation = a.correlation;
    EventText args;
    args.add("cbid", a.cbid).add("correlation", a.correlation);
    if (a.returnValue != 0)
        args.add("return value", a.returnValue);
    linkApiSide(addSlice(slice, sliceText(slice, args)), a.correlation);
}

void ProcessRecorder::onSync(const wire::Sync& s)
{
    ++m_data.counts.syncs;
    const auto device = m_contextDevice.find(s.context);
    RecordedSlice slice;
    slice.pid = device == m_contextDevice.end() ? 0 : device->second;
    slice.tid = kSyncRowOffset + (s.stream == kInvalid ? 0 : s.stream);
    slice.start = relative(s.start);
    slice.duration = spanOf(s.start, s.end);
    slice.name = intern(std::string(syncName(s.type)));
    slice.category = EventCategory::Sync;
    slice.correlation = s.correlation;
    EventText args;
    args.add("device", slice.pid).add("context", s.context).add("correlation", s.correlation);
    if (s.stream != kInvalid)
        args.add("stream", s.stream);
    if (s.event != kInvalid)
        args.add("event", s.event);
    // A sync waits for the GPU: its call gets an ac2g arrow like a launch does.
    linkGpuSide(addSlice(slice, sliceText(slice, args)), s.correlation);
}

void ProcessRecorder::addRange(const OpenMarker& start, TimeNs end)
{
    if (start.domain == 0) { // emit_nvtx writes to the default domain
        NvtxOp op;
        switch (parseNvtxOp(m_data.names[start.name], op)) {
        case NvtxOpParse::Op: addOpRange(start, end, op); return;
        case NvtxOpParse::Malformed: ++m_data.counts.malformedOpRanges; break;
        case NvtxOpParse::NotAnOp: break;
        }
    }
    ++m_data.counts.ranges;
    RecordedSlice slice;
    slice.pid = m_data.hello.pid;
    slice.tid = static_cast<std::int64_t>(start.threadId);
    slice.start = start.time;
    slice.duration = spanOf(start.time, end);
    slice.name = stepName(start.name);
    slice.category = EventCategory::Annotation;
    EventText args;
    if (start.domain != 0)
        args.addText("domain", m_data.names[start.domain]);
    addSlice(slice, sliceText(slice, args));
}

std::uint32_t ProcessRecorder::stepName(std::uint32_t name)
{
    if (m_stepMarker.empty() || m_data.names[name] != m_stepMarker)
        return name;
    return intern("ProfilerStep#" + std::to_string(m_nextStep++));
}

void ProcessRecorder::addOpRange(const OpenMarker& start, TimeNs end, const NvtxOp& op)
{
    ++m_data.counts.torchOps;
    const auto tid = static_cast<std::int64_t>(start.threadId);
    RecordedSlice slice;
    slice.pid = m_data.hello.pid;
    slice.tid = tid;
    slice.start = start.time;
    slice.duration = spanOf(start.time, end);
    slice.name = stepName(intern(std::string(op.name)));
    slice.category = op.label ? EventCategory::Annotation : EventCategory::CpuOp;
    TorchOp info;
    info.externalId = op.opId >= 0 ? op.opId : m_nextSyntheticOpId++;
    info.sequence = op.sequence;
    info.backward = op.backward;
    if (op.backward) {
        const std::string_view node = evaluatedNodeName(op.name);
        const auto last = m_lastBackwardNode.find(tid);
        if (!node.empty() && info.sequence < 0 && last != m_lastBackwardNode.end()
            && m_data.names[last->second.first] == node)
            info.sequence = last->second.second;
        else if (node.empty() && info.sequence >= 0)
            m_lastBackwardNode[tid] = {slice.name, info.sequence};
    }
    EventText args;
    args.add("External id", info.externalId);
    if (info.sequence >= 0) {
        // kineto's forward thread is RecordFunction's id of the thread that ran the forward
        // op: 0 on forward ops, the main thread's 1 on backward ops (NVTX does not say which
        // thread ran the forward op; training loops run it on the main thread).
        args.add("Sequence number", info.sequence).add("Fwd thread id", info.backward ? 1 : 0);
    }
    if (!op.inputDims.empty())
        args.validated("Input Dims", op.inputDims);
    slice.op = static_cast<std::int32_t>(m_data.ops.size());
    m_data.ops.push_back(info);
    addSlice(slice, sliceText(slice, args));
}

// Start and end of one NVTX range may sit in different per-thread CUPTI buffers, so either
// can arrive first: whichever comes first waits in m_openMarkers for its partner.
void ProcessRecorder::onMarker(const wire::Marker& m)
{
    noteThread(static_cast<std::int64_t>(m.threadId));
    const TimeNs time = relative(m.time);
    if (m.flags & wire::Marker::Instant) {
        ++m_data.counts.marks;
        RecordedInstant instant;
        instant.tid = static_cast<std::int64_t>(m.threadId);
        instant.time = time;
        instant.name = wireName(m.name);
        EventText args;
        if (m.domain != 0)
            args.addText("domain", m_data.names[wireName(m.domain)]);
        const auto span = m_arena->append(
            instantEventText(kUserAnnotation, quotedName(instant.name), m_data.hello.pid, instant.tid, time, args));
        instant.rawOffset = span.offset;
        instant.rawLength = span.length;
        m_data.instants.push_back(instant);
        m_lastTime = std::max(m_lastTime, time);
        return;
    }
    const bool isStart = (m.flags & wire::Marker::Start) != 0;
    if (!isStart && !(m.flags & wire::Marker::End)) {
        ++m_data.counts.badRecords;
        return;
    }
    const auto it = m_openMarkers.find(m.id);
    if (it == m_openMarkers.end() || it->second.isStart == isStart) {
        OpenMarker open{time, isStart ? wireName(m.name) : 0, isStart ? wireName(m.domain) : 0, m.threadId, isStart};
        if (it != m_openMarkers.end()) { // a second start/end for one id: keep the newest
            ++m_data.counts.unpairedMarkers;
            it->second = open;
        } else {
            m_openMarkers.emplace(m.id, open);
        }
        return;
    }
    if (isStart) {
        const OpenMarker start{time, wireName(m.name), wireName(m.domain), m.threadId, true};
        addRange(start, it->second.time);
    } else {
        addRange(it->second, time);
    }
    m_openMarkers.erase(it);
}

void ProcessRecorder::addProcessInstant(std::string name, const EventText& args)
{
    RecordedInstant instant;
    instant.tid = m_data.hello.pid;
    instant.time = m_lastTime;
    instant.name = intern(std::move(name));
    instant.fromCollector = true;
    const auto span = m_arena->append(
        instantEventText("\"collector\"", quotedName(instant.name), m_data.hello.pid, instant.tid, instant.time, args));
    instant.rawOffset = span.offset;
    instant.rawLength = span.length;
    m_data.instants.push_back(instant);
}

void ProcessRecorder::onOverhead(const wire::Overhead& o)
{
    ++m_data.counts.overheads;
    const TimeNs overhead = spanOf(o.start, o.end); // both >= 0: the sum saturates
    m_data.counts.overheadNs =
        std::min(overhead, std::numeric_limits<TimeNs>::max() - m_data.counts.overheadNs) + m_data.counts.overheadNs;
    RecordedSlice slice;
    slice.pid = kOverheadPid;
    slice.tid = 0;
    slice.start = relative(o.start);
    slice.duration = spanOf(o.start, o.end);
    slice.name = intern(std::string(overheadName(o.kind)));
    slice.category = EventCategory::Overhead;
    addSlice(slice, sliceText(slice, EventText()));
}

} // namespace ks::collector
