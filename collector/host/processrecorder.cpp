#include "collector/host/processrecorder.h"

#include "collector/host/cuptinames.h"
#include "collector/host/demangle.h"
#include "core/gpu/occupancy.h"

#include <algorithm>
#include <fstream>
#include <optional>

namespace ks::collector {
namespace {

constexpr std::uint32_t kInvalid = 0xffffffffu; // no stream, no event

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
    , m_writer(std::move(arena))
    , m_threadNamer(std::move(threadNamer))
{
    m_data.hello = std::move(hello);
    m_nameIndex.emplace(std::string(), 0);
    m_writer.addName("");
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
        const RecordedInstant instant = processInstant("Collector error: " + r.message);
        addInstant(instant, m_writer.error(m_data.hello.pid, instant, r.code));
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
        addEnding("Recording stopped", "the collector stopped recording; the process ran on");
    } else if (m_data.state == ConnectionState::Open) {
        m_data.state = ConnectionState::Terminated;
        addEnding("Process terminated", "the connection closed without GOODBYE: the process crashed or was killed");
    }
    m_data.counts.unpairedMarkers += m_openMarkers.size();
    m_openMarkers.clear();
}

std::uint32_t ProcessRecorder::intern(std::string text)
{
    const auto [it, inserted] = m_nameIndex.emplace(text, static_cast<std::uint32_t>(m_data.names.size()));
    if (inserted) {
        m_writer.addName(text);
        m_data.names.push_back(std::move(text));
    }
    return it->second;
}

void ProcessRecorder::onString(const wire::StringDef& s)
{
    if (looksLikeNvtxOp(s.text))
        m_opRangeTexts[s.id] = s.text;
    else
        m_wireNames[s.id] = intern(s.text);
}

std::uint32_t ProcessRecorder::internedName(std::uint32_t wireId)
{
    const auto text = m_opRangeTexts.find(wireId);
    if (text == m_opRangeTexts.end())
        return wireName(wireId);
    const std::uint32_t id = intern(std::move(text->second));
    m_opRangeTexts.erase(text);
    m_wireNames[wireId] = id;
    return id;
}

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

std::uint32_t ProcessRecorder::addSlice(RecordedSlice slice, TextArena::Span text)
{
    slice.rawOffset = text.offset;
    slice.rawLength = text.length;
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

void ProcessRecorder::addGpuOp(RecordedSlice slice, const GpuOpInfo& info, TextArena::Span text,
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
    std::optional<KernelOccupancy> occupancy;
    if (const auto props = m_deviceProperties.find(k.device); props != m_deviceProperties.end()) {
        // Blocks per SM from the grid; nothing for launch values no GPU accepts.
        const auto launch = gpu::kernelLaunchOf(info, &props->second);
        if (launch && launch->blocksPerSm > 0.0) {
            occupancy = KernelOccupancy{launch->blocksPerSm, gpu::warpsPerSm(*launch),
                                        gpu::estAchievedOccupancyPct(props->second, *launch)};
            info.blocksPerSm = static_cast<float>(occupancy->blocksPerSm);
            info.warpsPerSm = static_cast<float>(occupancy->warpsPerSm);
            if (occupancy->estAchievedPct)
                info.estAchievedOccupancyPct = static_cast<float>(*occupancy->estAchievedPct);
        }
    }
    const TimeNs queued = k.queued > 0 ? relative(k.queued) : 0;
    addGpuOp(slice, info, m_writer.kernel(slice, k, queued, info.sharedMemory, occupancy), k.correlation);
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
    addGpuOp(slice, info, m_writer.memcpy(slice, m), m.correlation);
}

void ProcessRecorder::onMemset(const wire::Memset& m)
{
    RecordedSlice slice;
    GpuOpInfo info;
    if (!beginGpuOp(m, EventCategory::Memset, m_data.counts.memsets, slice, info))
        return;
    slice.name = intern("Memset (" + std::string(memoryKindName(m.memoryKind)) + ")");
    info.bytes = static_cast<std::int64_t>(m.bytes);
    addGpuOp(slice, info, m_writer.memset(slice, m), m.correlation);
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
    linkApiSide(addSlice(slice, m_writer.api(slice, a)), a.correlation);
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
    const TextArena::Span text = m_writer.sync(slice, s, s.stream != kInvalid, s.event != kInvalid);
    // A sync waits for the GPU: its call gets an ac2g arrow like a launch does.
    linkGpuSide(addSlice(slice, text), s.correlation);
}

void ProcessRecorder::addRange(OpenMarker start, TimeNs end)
{
    const auto text = start.opText ? m_opRangeTexts.find(*start.opText) : m_opRangeTexts.end();
    if (text != m_opRangeTexts.end()) {
        NvtxOp op;
        // emit_nvtx writes to the default domain
        switch (start.domain == 0 ? parseNvtxOp(text->second, op) : NvtxOpParse::NotAnOp) {
        case NvtxOpParse::Op:
            addOpRange(start, end, op); // op.name points into the text
            m_opRangeTexts.erase(text);
            return;
        case NvtxOpParse::Malformed: ++m_data.counts.malformedOpRanges; break;
        case NvtxOpParse::NotAnOp: break;
        }
        start.name = internedName(*start.opText);
    }
    ++m_data.counts.ranges;
    RecordedSlice slice;
    slice.pid = m_data.hello.pid;
    slice.tid = static_cast<std::int64_t>(start.threadId);
    slice.start = start.time;
    slice.duration = spanOf(start.time, end);
    slice.name = stepName(start.name);
    slice.category = EventCategory::Annotation;
    std::optional<std::string_view> domain;
    if (start.domain != 0)
        domain = m_data.names[start.domain];
    addSlice(slice, m_writer.range(slice, domain));
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
    slice.op = static_cast<std::int32_t>(m_data.ops.size());
    m_data.ops.push_back(info);
    addSlice(slice, m_writer.opRange(slice, info, op.inputDims));
}

ProcessRecorder::OpenMarker ProcessRecorder::openMarker(const wire::Marker& m, TimeNs time, bool isStart)
{
    OpenMarker marker{time, 0, 0, m.threadId, isStart, std::nullopt};
    if (!isStart)
        return marker;
    marker.domain = internedName(m.domain);
    if (m_opRangeTexts.count(m.name))
        marker.opText = m.name;
    else
        marker.name = wireName(m.name);
    return marker;
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
        instant.name = internedName(m.name);
        std::optional<std::string_view> domain;
        if (m.domain != 0)
            domain = m_data.names[internedName(m.domain)];
        addInstant(instant, m_writer.mark(m_data.hello.pid, instant, domain));
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
        const OpenMarker open = openMarker(m, time, isStart);
        if (it != m_openMarkers.end()) { // a second start/end for one id: keep the newest
            ++m_data.counts.unpairedMarkers;
            it->second = open;
        } else {
            m_openMarkers.emplace(m.id, open);
        }
        return;
    }
    if (isStart) {
        addRange(openMarker(m, time, true), it->second.time);
    } else {
        addRange(it->second, time);
    }
    m_openMarkers.erase(it);
}

RecordedInstant ProcessRecorder::processInstant(std::string name)
{
    RecordedInstant instant;
    instant.tid = m_data.hello.pid;
    instant.time = m_lastTime;
    instant.name = intern(std::move(name));
    instant.fromCollector = true;
    return instant;
}

void ProcessRecorder::addEnding(std::string name, std::string_view reason)
{
    const RecordedInstant instant = processInstant(std::move(name));
    addInstant(instant, m_writer.ending(m_data.hello.pid, instant, reason));
}

void ProcessRecorder::addInstant(RecordedInstant instant, TextArena::Span text)
{
    instant.rawOffset = text.offset;
    instant.rawLength = text.length;
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
    addSlice(slice, m_writer.overhead(slice));
}

} // namespace ks::collector
