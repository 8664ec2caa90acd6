#include "collector/host/collectedtrace.h"

#include "core/model/tracebuilder.h"

#include <algorithm>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace ks::collector {
namespace {

constexpr std::int64_t kGpuSortBase = 5000000;
constexpr const char* kLiveWindowKey = "liveWindow"; // a live window's metadata (liveWindowOf)

// Adds the GPU rows that the process's slices from `first` on have work on: (device, stream or
// sync row).
void addGpuRows(const RecordedProcess& process, std::size_t first,
                std::set<std::pair<std::int64_t, std::int64_t>>& rows)
{
    auto last = rows.end(); // a stream's records come in runs
    for (std::size_t i = first; i < process.slices.size(); ++i) {
        const auto& s = process.slices[i];
        if (isGpuCategory(s.category) && (last == rows.end() || *last != std::pair(s.pid, s.tid)))
            last = rows.emplace(s.pid, s.tid).first;
    }
}

std::set<std::pair<std::int64_t, std::int64_t>> gpuRows(const RecordedProcess& process)
{
    std::set<std::pair<std::int64_t, std::int64_t>> rows;
    addGpuRows(process, 0, rows);
    return rows;
}

// The devices that more than one of the processes ran work on.
std::set<std::int64_t> sharedDevices(const std::vector<RecordedProcess>& processes)
{
    std::map<std::int64_t, int> processesOn;
    for (const auto& process : processes) {
        std::set<std::int64_t> devices;
        for (const auto& [device, row] : gpuRows(process))
            devices.insert(device);
        for (const std::int64_t d : devices)
            ++processesOn[d];
    }
    std::set<std::int64_t> shared;
    for (const auto& [device, count] : processesOn) {
        if (count > 1)
            shared.insert(device);
    }
    return shared;
}

// Adds one process's records to a builder, from where `added` says the last call stopped:
// first the records (kept between live snapshots), then what is derived from all of them.
class ProcessEmitter {
public:
    // shared: a merged file of several processes; sharedDevices: the GPUs that several of them
    // used, whose rows get a pid per process (the writer numbers them), where the others keep
    // kineto's (the device index).
    ProcessEmitter(TraceBuilder& builder, const RecordedProcess& process, const ProcessDerivations& derived,
                   AddedProcess& added, bool shared, const std::set<std::int64_t>& sharedDevices)
        : m_builder(builder)
        , m_process(process)
        , m_derived(derived)
        , m_added(added)
        , m_shared(shared)
        , m_sharedDevices(sharedDevices)
    {
        m_added.pid = process.hello.pid;
        for (std::size_t n = m_added.names.size(); n < process.names.size(); ++n)
            m_added.names.push_back(builder.strings().intern(process.names[n]));
        for (int c = 0; c <= static_cast<int>(EventCategory::GpuAnnotation); ++c)
            m_categories[c] = builder.strings().intern(categoryName(static_cast<EventCategory>(c)));
    }

    void emitRecorded()
    {
        addGpuRows(m_process, m_added.slices, m_added.gpuRows);
        emitMetadata();
        // An op range is recorded when it ends, after the calls it contains: those added
        // before it get their External id now.
        const auto& ids = m_derived.ops.externalIdOfSlice();
        for (const std::uint32_t slice : m_derived.ops.changed()) {
            if (const std::uint32_t added = m_added.builderSlice(slice); added != kNoIndex)
                m_builder.setExternalId(added, ids[slice]);
        }
        const auto& slices = m_process.slices;
        m_added.builderIndex.reserve(slices.size() - m_added.firstSlice);
        for (std::size_t i = m_added.slices; i < slices.size(); ++i) {
            m_added.builderIndex.push_back(m_builder.addSlice(sliceEvent(slices[i], ids.empty() ? kNoId : ids[i])));
            m_added.earliestStart = std::min(m_added.earliestStart, slices[i].start);
        }
        m_added.slices = slices.size();
        emitFlows();
        emitInstants();
    }

    void emitDerived()
    {
        // Spans over the whole recording: in a window, those that reach into it.
        const TimeNs windowStart = m_added.firstSlice == 0 ? std::numeric_limits<TimeNs>::min()
            : m_added.firstSlice < m_process.slices.size() ? m_process.slices[m_added.firstSlice].start
                                                           : std::numeric_limits<TimeNs>::max();
        for (const auto& annotation : m_derived.annotations.slices(m_process)) {
            if (sliceEnd(annotation) < windowStart)
                continue;
            m_builder.addSlice(sliceEvent(
                annotation,
                annotation.op >= 0 ? m_process.ops[static_cast<std::size_t>(annotation.op)].externalId : kNoId));
        }
        emitForwardBackwardFlows();
    }

private:
    JsonId pidOf(const RecordedSlice& s) const
    {
        if (s.pid == kOverheadPid && s.category == EventCategory::Overhead)
            return m_shared ? text("CUPTI overhead · pid " + std::to_string(m_process.hello.pid))
                            : JsonId::fromNumber(kOverheadPid);
        if (!isGpuCategory(s.category))
            return JsonId::fromNumber(s.pid);
        return devicePid(s.pid);
    }

    JsonId devicePid(std::int64_t device) const
    {
        if (!m_shared || !m_sharedDevices.count(device))
            return JsonId::fromNumber(device);
        return text("GPU " + std::to_string(device) + " · pid " + std::to_string(m_process.hello.pid));
    }

    JsonId text(const std::string& s) const { return JsonId::fromText(m_builder.strings().intern(s)); }

    SliceEvent sliceEvent(const RecordedSlice& s, std::int64_t externalId) const
    {
        SliceEvent e;
        e.pid = pidOf(s);
        e.tid = JsonId::fromNumber(s.tid);
        e.device = isGpuCategory(s.category);
        e.start = s.start;
        e.duration = s.duration;
        e.name = m_added.names[s.name];
        e.category = m_categories[static_cast<int>(s.category)];
        e.rawOffset = s.rawOffset;
        e.rawLength = s.rawLength;
        e.correlation = s.correlation;
        e.externalId = externalId;
        e.gpuOp = s.gpuOp >= 0 ? &m_process.gpuOps[static_cast<std::size_t>(s.gpuOp)] : nullptr;
        return e;
    }

    void emitFlows()
    {
        const StringId ac2g = m_builder.strings().intern("ac2g");
        // Correlation ids count per process: the pid keeps two processes' flows apart.
        const auto idBase = static_cast<std::uint64_t>(m_process.hello.pid) << 32;
        for (std::size_t i = m_added.flows; i < m_process.flows.size(); ++i) {
            const auto& flow = m_process.flows[i];
            const std::uint32_t slice = m_added.builderSlice(flow.slice);
            if (slice == kNoIndex) // before the window
                continue;
            const RecordedSlice& s = m_process.slices[flow.slice];
            FlowEvent f;
            f.phase = flow.start ? FlowPhase::Start : FlowPhase::End;
            f.category = ac2g;
            f.name = ac2g;
            f.id = idBase | flow.correlation;
            f.pid = pidOf(s);
            f.tid = JsonId::fromNumber(s.tid);
            f.device = isGpuCategory(s.category);
            f.time = s.start;
            f.bindEnclosing = !flow.start;
            f.pendingSlice = slice;
            m_builder.addFlowEvent(f);
        }
        m_added.flows = m_process.flows.size();
    }

    // kineto's fwdbwd arrows, from a forward op to the backward op of its autograd node.
    void emitForwardBackwardFlows()
    {
        const StringId fwdbwd = m_builder.strings().intern("fwdbwd");
        const auto idBase = static_cast<std::uint64_t>(m_process.hello.pid) << 32;
        std::uint64_t next = 0;
        for (const auto& [forward, backward] : m_derived.ops.forwardBackward()) {
            ++next;
            if (m_added.builderSlice(forward) == kNoIndex || m_added.builderSlice(backward) == kNoIndex)
                continue;
            for (const std::uint32_t slice : {forward, backward}) {
                const RecordedSlice& s = m_process.slices[slice];
                FlowEvent f;
                f.phase = slice == forward ? FlowPhase::Start : FlowPhase::End;
                f.category = fwdbwd;
                f.name = fwdbwd;
                f.id = idBase | next;
                f.pid = pidOf(s);
                f.tid = JsonId::fromNumber(s.tid);
                f.time = s.start;
                f.bindEnclosing = slice == backward;
                f.pendingSlice = m_added.builderSlice(slice);
                m_builder.addFlowEvent(f);
            }
        }
    }

    void emitInstants()
    {
        const StringId annotation = m_builder.strings().intern("user_annotation");
        const StringId collector = m_builder.strings().intern("collector");
        for (std::size_t n = m_added.instants; n < m_process.instants.size(); ++n) {
            const auto& i = m_process.instants[n];
            InstantEvent e;
            e.pid = JsonId::fromNumber(m_process.hello.pid);
            e.tid = JsonId::fromNumber(i.tid);
            e.time = i.time;
            e.name = m_added.names[i.name];
            e.category = i.fromCollector ? collector : annotation;
            e.rawOffset = i.rawOffset;
            e.rawLength = i.rawLength;
            m_builder.addInstant(e);
        }
        m_added.instants = m_process.instants.size();
    }

    void emitMetadata()
    {
        const JsonId cpu = JsonId::fromNumber(m_process.hello.pid);
        const std::string name = m_process.executableName();
        m_builder.setProcessName(cpu, name);
        m_builder.setProcessLabels(cpu, "CPU");
        m_builder.setProcessSortIndex(cpu, m_process.hello.pid);
        for (const auto& [tid, threadName] : m_process.threadNames) {
            m_builder.setThreadName(cpu, JsonId::fromNumber(tid), threadName);
            m_builder.setThreadSortIndex(cpu, JsonId::fromNumber(tid), tid);
        }
        std::set<std::int64_t> devices;
        for (const auto& [device, tid] : m_added.gpuRows) {
            const JsonId pid = devicePid(device);
            if (devices.insert(device).second) {
                m_builder.setProcessName(pid, name);
                m_builder.setProcessLabels(pid, "GPU " + std::to_string(device));
                m_builder.setProcessSortIndex(pid, kGpuSortBase + device);
            }
            const std::string rowName = tid >= kSyncRowOffset
                ? "stream " + std::to_string(tid - kSyncRowOffset) + " (sync)"
                : "stream " + std::to_string(tid);
            m_builder.setThreadName(pid, JsonId::fromNumber(tid), rowName);
            m_builder.setThreadSortIndex(pid, JsonId::fromNumber(tid), tid);
        }
    }

    TraceBuilder& m_builder;
    const RecordedProcess& m_process;
    const ProcessDerivations& m_derived;
    AddedProcess& m_added;
    bool m_shared = false;
    const std::set<std::int64_t>& m_sharedDevices;
    StringId m_categories[static_cast<int>(EventCategory::GpuAnnotation) + 1] = {};
};

// A rank's info with the backend of the collectives it ran (its names: c10d's ranges, NCCL's
// kernels); the environment does not say which backend the program chose.
DistributedInfo withBackend(const RecordedProcess& process)
{
    DistributedInfo info = *process.distributed;
    for (const std::string& name : process.names) {
        if (const auto backend = collectiveBackend(name); !backend.empty()) {
            info.backend = backend;
            break;
        }
    }
    return info;
}

// A rank's own file: kineto's distributedInfo. A merged file holds several processes (ranks,
// and their launcher): each rank's info under "distributedRanks", so that the file is not
// mistaken for one rank.
void addDistributedInfo(TraceBuilder& builder, const std::vector<RecordedProcess>& processes)
{
    if (processes.size() == 1) {
        if (processes.front().distributed)
            builder.addMetadata("distributedInfo", distributedInfoJson(withBackend(processes.front())));
        return;
    }
    std::string ranks;
    for (const auto& process : processes) {
        if (process.distributed)
            ranks += (ranks.empty() ? "[" : ", ") + distributedInfoJson(withBackend(process), process.hello.pid);
    }
    if (!ranks.empty())
        builder.addMetadata("distributedRanks", ranks + "]");
}

// Adds to `builder` what the processes recorded since `added` says, then what is derived from
// all of it (see LiveTraceBuilder).
class CollectedTraceEmitter {
public:
    CollectedTraceEmitter(TraceBuilder& builder, const std::vector<RecordedProcess>& processes,
                          const std::vector<ProcessDerivations>& derived, std::vector<AddedProcess>& added,
                          const std::set<std::int64_t>& devicesOfSeveral)
        : m_builder(builder)
        , m_processes(processes)
    {
        m_emitters.reserve(processes.size());
        for (std::size_t p = 0; p < processes.size(); ++p)
            m_emitters.emplace_back(builder, processes[p], derived[p], added[p], processes.size() > 1,
                                    devicesOfSeveral);
    }

    void emitRecorded()
    {
        for (auto& emitter : m_emitters)
            emitter.emitRecorded();
    }

    void emitDerived(const TraceBuildOptions& options)
    {
        for (auto& emitter : m_emitters)
            emitter.emitDerived();
        std::vector<wire::Device> devices;
        for (const auto& process : m_processes) {
            for (const auto& d : process.devices) {
                if (std::none_of(devices.begin(), devices.end(), [&](const auto& known) { return known.id == d.id; }))
                    devices.push_back(d);
            }
            warnAbout(process);
        }
        std::sort(devices.begin(), devices.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
        addMetadata(options, devices);
    }

private:
    void warnAbout(const RecordedProcess& process)
    {
        for (const auto& error : process.errors)
            m_builder.diagnostics().warn("collector-error", process.displayName() + ": " + error.message);
        if (process.state == ConnectionState::Terminated)
            m_builder.diagnostics().warn("process-terminated",
                                         process.displayName()
                                             + " ended without GOODBYE (crashed or killed); "
                                               "events after its last flush are missing");
        if (process.counts.malformedOpRanges > 0)
            m_builder.diagnostics().warn("nvtx-op-unparsed",
                                         process.displayName() + ": " + std::to_string(process.counts.malformedOpRanges)
                                             + " NVTX ranges look like PyTorch op ranges but did not parse; "
                                               "kept as NVTX ranges");
        if (process.droppedTotal() > 0)
            m_builder.diagnostics().warn("dropped-records",
                                         process.displayName() + ": " + std::to_string(process.droppedTotal())
                                             + " records dropped");
    }

    void addMetadata(const TraceBuildOptions& options, const std::vector<wire::Device>& devices)
    {
        m_builder.addMetadata("schemaVersion", "1");
        // deviceProperties: the writer adds them from the model (setDeviceProperties below).
        if (!m_processes.empty()) {
            const auto& hello = m_processes.front().hello;
            // Versions the traced process could not tell are left out rather than written as 0.
            if (hello.cuptiVersion)
                m_builder.addMetadata("cupti_version", std::to_string(hello.cuptiVersion));
            if (hello.driverVersion)
                m_builder.addMetadata("cuda_driver_version", std::to_string(hello.driverVersion));
            if (hello.runtimeVersion)
                m_builder.addMetadata("cuda_runtime_version", std::to_string(hello.runtimeVersion));
        }
        m_builder.addMetadata("displayTimeUnit", "\"ms\"");
        if (!options.stepMarker.empty())
            m_builder.addMetadata(
                "stepMarker",
                nlohmann::json(options.stepMarker).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        addDistributedInfo(m_builder, m_processes);
        m_builder.addMetadata("baseTimeNanoseconds", std::to_string(options.baseNs));
        std::vector<DeviceProperties> properties;
        properties.reserve(devices.size());
        for (const auto& d : devices)
            properties.push_back(toDeviceProperties(d));
        m_builder.setDeviceProperties(std::move(properties));
        m_builder.setBaseTimeNs(options.baseNs);
        if (options.arena)
            m_builder.setTextSource(options.arena);
    }

    TraceBuilder& m_builder;
    const std::vector<RecordedProcess>& m_processes;
    std::vector<ProcessEmitter> m_emitters;
};

} // namespace

Trace buildCollectedTrace(const std::vector<RecordedProcess>& processes, const TraceBuildOptions& options)
{
    TraceBuilder builder;
    // Sized once: growing the columns of a million events copies them again and again.
    TraceBuilder::EventCounts counts;
    for (const auto& process : processes) {
        counts.slices += process.slices.size();
        counts.gpuOps += process.gpuOps.size();
        counts.flowEvents += process.flows.size();
        counts.instants += process.instants.size();
    }
    builder.reserveFor(counts);
    const std::set<std::int64_t> devicesOfSeveral =
        processes.size() > 1 ? sharedDevices(processes) : std::set<std::int64_t>();
    std::vector<ProcessDerivations> derived(processes.size());
    for (std::size_t p = 0; p < processes.size(); ++p)
        derived[p].update(processes[p]);
    std::vector<AddedProcess> added(processes.size());
    CollectedTraceEmitter emitter(builder, processes, derived, added, devicesOfSeveral);
    emitter.emitRecorded();
    emitter.emitDerived(options);
    return builder.finish();
}

std::optional<LiveWindowExtent> liveWindowOf(const Trace& trace)
{
    const std::string* text = trace.metadataValue(kLiveWindowKey);
    if (!text)
        return std::nullopt;
    const auto json = nlohmann::json::parse(*text, nullptr, false);
    if (!json.is_object() || !json.contains("slicesShown") || !json.contains("slicesRecorded")
        || !json.contains("shownFrom") || !json["slicesShown"].is_number_unsigned()
        || !json["slicesRecorded"].is_number_unsigned() || !json["shownFrom"].is_number_integer())
        return std::nullopt;
    return LiveWindowExtent{json["slicesShown"].get<std::size_t>(), json["slicesRecorded"].get<std::size_t>(),
                            json["shownFrom"].get<TimeNs>()};
}

void ProcessDerivations::update(const RecordedProcess& process)
{
    ops.update(process, index);
    annotations.update(process, index);
    for (; scanned < process.slices.size(); ++scanned)
        earliestStart = std::min(earliestStart, process.slices[scanned].start);
}

AddedProcess AddedProcess::from(const RecordedProcess& process)
{
    AddedProcess added;
    added.pid = process.hello.pid;
    added.firstSlice = added.slices = process.slices.size();
    added.flows = process.flows.size();
    added.instants = process.instants.size();
    return added;
}

bool LiveTraceBuilder::continuesWith(const std::vector<RecordedProcess>& processes,
                                     const std::set<std::int64_t>& devicesOfSeveral) const
{
    if (processes.size() != m_derived.size() || devicesOfSeveral != m_devicesOfSeveral)
        return false;
    for (std::size_t p = 0; p < processes.size(); ++p) {
        const auto& process = processes[p];
        const auto& added = m_shown.added[p];
        if (process.hello.pid != added.pid || process.slices.size() < added.slices || process.flows.size() < added.flows
            || process.instants.size() < added.instants || process.names.size() < added.names.size())
            return false;
    }
    return true;
}

void LiveTraceBuilder::setWindow(std::size_t slices)
{
    if (slices == m_window)
        return;
    m_window = slices;
    m_derived.clear(); // continuesWith() fails: the next build starts over
}

void LiveTraceBuilder::slideWindow(const std::vector<RecordedProcess>& processes)
{
    const auto startingNow = [&] {
        auto window = std::make_unique<Window>();
        for (const auto& process : processes)
            window->added.push_back(AddedProcess::from(process));
        return window;
    };
    if (m_next && m_next->builder.sliceCount() >= m_window / 2) {
        m_shown = std::move(*m_next);
        m_next.reset();
    }
    if (!m_next && m_shown.builder.sliceCount() >= m_window / 2)
        m_next = startingNow();
}

Trace LiveTraceBuilder::build(const std::vector<RecordedProcess>& processes, const TraceBuildOptions& options)
{
    std::set<std::int64_t> devicesOfSeveral =
        processes.size() > 1 ? sharedDevices(processes) : std::set<std::int64_t>();
    if (!continuesWith(processes, devicesOfSeveral)) {
        m_derived.assign(processes.size(), ProcessDerivations());
        m_shown = Window();
        m_shown.added.assign(processes.size(), AddedProcess());
        m_next.reset();
        m_devicesOfSeveral = std::move(devicesOfSeveral);
    }
    for (std::size_t p = 0; p < processes.size(); ++p)
        m_derived[p].update(processes[p]);
    const auto emitter = [&](Window& window) {
        return CollectedTraceEmitter(window.builder, processes, m_derived, window.added, m_devicesOfSeveral);
    };
    if (m_next)
        emitter(*m_next).emitRecorded();
    emitter(m_shown).emitRecorded();
    if (m_window > 0)
        slideWindow(processes);

    TraceBuilder& builder = m_shown.builder;
    for (const auto& derived : m_derived) {
        if (derived.scanned > 0) // a window's times count from the recording's start, as the finished trace's
            builder.extendStartTo(derived.earliestStart);
    }
    const TraceBuilder::Mark recorded = builder.mark();
    m_shownSlices = recorded.slices;
    m_recordedSlices = 0;
    for (const auto& process : processes)
        m_recordedSlices += process.slices.size();
    emitter(m_shown).emitDerived(options);
    if (m_shownSlices < m_recordedSlices) {
        TimeNs shownFrom = std::numeric_limits<TimeNs>::max();
        for (const auto& added : m_shown.added)
            shownFrom = std::min(shownFrom, added.earliestStart);
        builder.addMetadata(kLiveWindowKey,
                            nlohmann::json{{"slicesShown", m_shownSlices},
                                           {"slicesRecorded", m_recordedSlices},
                                           {"shownFrom", shownFrom}}
                                .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    Trace trace = builder.snapshot();
    builder.rollback(recorded);
    return trace;
}

} // namespace ks::collector
