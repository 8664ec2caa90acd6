#include "collector/host/collectorsession.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace ks::collector {
namespace {

std::int64_t nowEpochNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

CollectorSession::CollectorSession(SessionOptions options)
    : m_options(std::move(options))
    , m_capture(m_options.capture)
{
    // ts 0 of every file of the session: its start floored to a second, which keeps ts small
    // (kineto's 3-month floor pushes ts to ~1e12 µs, close to double precision).
    constexpr std::int64_t kSecond = 1000000000;
    m_baseNs = nowEpochNs() / kSecond * kSecond;
}

CollectorSession::~CollectorSession() { m_server.stop(); }

bool CollectorSession::listen(std::string& error) { return m_server.listen(error); }

bool CollectorSession::start(const LaunchRequest& request, std::string& error)
{
    std::string library = m_options.injectionLibrary;
    if (library.empty()) {
        const auto found = findInjectionLibrary(error);
        if (!found)
            return false;
        library = *found;
    }
    if (!resolveProgram(request.program, error))
        return false;
    InjectionSettings injection;
    injection.libraryPath = library;
    if (!m_server.listen(error))
        return false;
    injection.socketPath = m_server.socketPath();
    injection.token = m_server.token();
    injection.options = m_options.injectionOptions;
    const auto environment = buildEnvironment(currentEnvironment(), request, injection, error);
    if (!environment || !m_child.start(request, *environment, error)) {
        m_server.stop();
        return false;
    }
    constexpr double kNsPerSecond = 1e9;
    std::lock_guard lock(m_mutex);
    const TimeNs started = nowEpochNs() - m_baseNs;
    if (m_options.delaySeconds > 0)
        m_capture.time.start = started + static_cast<TimeNs>(m_options.delaySeconds * kNsPerSecond);
    if (m_options.durationSeconds > 0)
        m_capture.time.end =
            std::max(started, m_capture.time.start) + static_cast<TimeNs>(m_options.durationSeconds * kNsPerSecond);
    return true;
}

void CollectorSession::setPaused(bool paused)
{
    const TimeNs now = nowEpochNs() - m_baseNs;
    std::lock_guard lock(m_mutex);
    if (paused && !m_pausedSince) {
        m_pausedSince = now;
    } else if (!paused && m_pausedSince) {
        m_capture.paused.push_back({*m_pausedSince, now});
        m_pausedSince.reset();
    }
}

bool CollectorSession::paused() const
{
    std::lock_guard lock(m_mutex);
    return m_pausedSince.has_value();
}

CaptureSpec CollectorSession::captureSpec() const
{
    std::lock_guard lock(m_mutex);
    CaptureSpec spec = m_capture;
    if (m_pausedSince)
        spec.paused.push_back({*m_pausedSince, TimeWindow().end});
    return spec;
}

CaptureOutcome CollectorSession::applyCapture(std::vector<RecordedProcess>& processes) const
{
    return collector::applyCapture(processes, captureSpec());
}

void CollectorSession::stopReceiving() { m_server.stop(); }

bool CollectorSession::waitForConnectionsClosed(int timeoutMs)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (m_server.openConnections() > 0) {
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
}

bool CollectorSession::finishedWith(std::int64_t pid) const
{
    if (m_server.openConnections() > 0)
        return false;
    std::lock_guard lock(m_mutex);
    return std::any_of(m_recorders.begin(), m_recorders.end(), [pid](const auto& entry) {
        const RecordedProcess& p = entry.second->data();
        return p.hello.pid == pid && p.state == ConnectionState::Finished;
    });
}

void CollectorSession::connectionAccepted(ConnectionId id, wire::Hello hello)
{
    const std::int64_t pid = hello.pid;
    auto recorder = std::make_unique<ProcessRecorder>(std::move(hello), m_baseNs, m_arena);
    recorder->setStepMarker(m_options.stepMarker);
    // The process is alive here (it waits for nothing but keeps running): its environment
    // says which rank it is.
    recorder->setDistributedInfo(distributedInfoFromEnvironment(processEnvironment(pid)));
    std::lock_guard lock(m_mutex);
    m_recorders[id] = std::move(recorder);
}

void CollectorSession::frameReceived(ConnectionId id, const wire::Frame& frame)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_recorders.find(id);
    if (it != m_recorders.end())
        it->second->handle(frame);
}

void CollectorSession::connectionClosed(ConnectionId id, bool byCollector)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_recorders.find(id);
    if (it != m_recorders.end())
        it->second->connectionClosed(byCollector);
}

void CollectorSession::connectionRejected(const std::string& reason)
{
    std::lock_guard lock(m_mutex);
    m_rejections.push_back(reason);
}

void CollectorSession::receiverFailed(const std::string& error)
{
    std::lock_guard lock(m_mutex);
    m_receiverErrors.push_back(error);
}

SessionStats CollectorSession::stats() const
{
    SessionStats s;
    s.openConnections = m_server.openConnections();
    std::lock_guard lock(m_mutex);
    s.rejections = m_rejections;
    s.errors = m_receiverErrors;
    for (const auto& [id, recorder] : m_recorders) {
        const RecordedProcess& p = recorder->data();
        ++s.processes;
        if (p.state == ConnectionState::Terminated)
            ++s.terminatedProcesses;
        s.kernels += p.counts.kernels;
        s.memcpys += p.counts.memcpys;
        s.memsets += p.counts.memsets;
        s.apiCalls += p.counts.apiCalls;
        s.ranges += p.counts.ranges;
        s.torchOps += p.counts.torchOps;
        s.dropped += p.droppedTotal();
        s.cuptiOverhead += p.counts.overheadNs;
        for (const auto& e : p.errors)
            s.errors.push_back(p.displayName() + ": " + e.message);
    }
    return s;
}

std::vector<RecordedProcess> CollectorSession::processes() const
{
    std::vector<RecordedProcess> copies;
    std::lock_guard lock(m_mutex);
    copies.reserve(m_recorders.size());
    for (const auto& [id, recorder] : m_recorders)
        copies.push_back(recorder->data());
    return copies;
}

std::vector<RecordedProcess> CollectorSession::takeProcesses()
{
    std::vector<RecordedProcess> taken;
    std::lock_guard lock(m_mutex);
    taken.reserve(m_recorders.size());
    for (auto& [id, recorder] : m_recorders)
        taken.push_back(recorder->release());
    return taken;
}

TraceBuildOptions CollectorSession::buildOptions() const
{
    TraceBuildOptions options;
    options.baseNs = m_baseNs;
    options.arena = m_arena;
    options.stepMarker = m_options.stepMarker;
    return options;
}

Trace CollectorSession::traceOf(const std::vector<RecordedProcess>& processes) const
{
    return buildCollectedTrace(processes, buildOptions());
}

Trace CollectorSession::snapshot() const
{
    auto recorded = processes();
    applyCapture(recorded);
    return traceOf(recorded);
}

Trace CollectorSession::snapshot(LiveCopy& copy) const
{
    {
        std::lock_guard lock(m_mutex);
        for (const auto& [id, recorder] : m_recorders) {
            // Connections are numbered in order of arrival, so a new one usually goes last.
            const auto at = std::lower_bound(copy.connections.begin(), copy.connections.end(), id);
            const auto index = at - copy.connections.begin();
            if (at == copy.connections.end() || *at != id) {
                copy.connections.insert(at, id);
                copy.processes.insert(copy.processes.begin() + index, RecordedProcess());
            }
            copy.processes[static_cast<std::size_t>(index)].catchUp(recorder->data());
        }
    }
    const CaptureSpec spec = captureSpec();
    if (!spec.filters())
        return copy.builder.build(copy.processes, buildOptions());
    auto kept = copy.processes; // the capture drops records: from a copy, the live one keeps growing
    collector::applyCapture(kept, spec);
    return traceOf(kept);
}

} // namespace ks::collector
