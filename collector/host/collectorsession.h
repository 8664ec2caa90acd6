#pragma once
// One recording: the listener, the launched program and what every traced process sent.
// The receiving thread feeds the per-process recorders under m_mutex; snapshots copy the
// recorded data under the lock and build the trace model outside it, so the GUI (or the
// CLI) can take one at any time while recording goes on.
#include "collector/host/capturerange.h"
#include "collector/host/collectedtrace.h"
#include "collector/host/collectorserver.h"
#include "collector/host/launcher.h"
#include "collector/host/processrecorder.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace ks::collector {

struct SessionStats {
    int processes = 0; // traced processes that said HELLO
    int openConnections = 0;
    int terminatedProcesses = 0; // ended without GOODBYE
    std::uint64_t kernels = 0, memcpys = 0, memsets = 0, apiCalls = 0, ranges = 0;
    std::uint64_t torchOps = 0; // PyTorch ops and labels from emit_nvtx ranges
    std::uint64_t dropped = 0;
    TimeNs cuptiOverhead = 0; // total duration of CUPTI's own overhead records
    std::vector<std::string> errors; // from the traced processes (CUPTI in use, ...) and our receiver
    std::vector<std::string> rejections; // peers turned away
    std::uint64_t events() const { return kernels + memcpys + memsets + apiCalls + ranges; }
};

struct SessionOptions {
    std::string injectionOptions; // passed through KINETOSCOPE_COLLECTOR_OPTIONS
    std::string injectionLibrary; // empty: findInjectionLibrary()
    std::string stepMarker; // NVTX range / record_function label that marks one step
    CaptureSpec capture; // range only: start() sets its time window from the two below
    double delaySeconds = 0; // records from this long after the program started
    double durationSeconds = 0; // for this long (0: to the end)
};

// A live view's own copy of the recording and its trace builder, kept between its snapshots
// so that each one copies and adds only what arrived since the last
// (CollectorSession::snapshot(LiveCopy&)).
struct LiveCopy {
    std::vector<ConnectionId> connections; // parallel to processes, ascending
    std::vector<RecordedProcess> processes;
    LiveTraceBuilder builder;
};

class CollectorSession final : private RecordSink {
public:
    explicit CollectorSession(SessionOptions options = {});
    ~CollectorSession() override;

    // Listens, then launches the program with the injection environment.
    bool start(const LaunchRequest& request, std::string& error);
    // Stops receiving: closes every connection (traced processes detach and run on).
    void stopReceiving();

    ChildProcess& target() { return m_child; }
    // Waits until every traced process has said GOODBYE or disconnected (after the target
    // exited), at most `timeoutMs`.
    bool waitForConnectionsClosed(int timeoutMs);
    // Whether process `pid` said GOODBYE (its last records came: it is exiting) and no
    // connection is open any more: nothing more can arrive unless a new process starts.
    bool finishedWith(std::int64_t pid) const;

    std::int64_t baseTimeNs() const { return m_baseNs; }
    SessionStats stats() const;
    // Copies of the processes recorded so far, in order of connection.
    std::vector<RecordedProcess> processes() const;
    // The processes recorded, moved out without a copy (the end of a recording: after
    // stopReceiving()); in order of connection. Later calls get empty recordings.
    std::vector<RecordedProcess> takeProcesses();
    // The whole session as one trace model (live view, merged file).
    // The capture windows applied: drops what lies outside (see capturerange.h).
    CaptureOutcome applyCapture(std::vector<RecordedProcess>& processes) const;
    // Recorded processes with the capture applied, as one trace model (live view, merged file).
    Trace snapshot() const;
    // The same trace, for a view that takes one snapshot after another: `copy` is brought up to
    // date with the new records only (under the lock), which are then added to its builder
    // outside the lock. With a capture filter (a pause, a range) the trace is built whole.
    Trace snapshot(LiveCopy& copy) const;
    // Unfiltered: call applyCapture() first.
    Trace traceOf(const std::vector<RecordedProcess>& processes) const;

    // The GUI's Pause/Resume: records made while paused are dropped when the trace is built
    // (the program stays traced; see capturerange.h for why the host filters).
    void setPaused(bool paused);
    bool paused() const;
    // The range, time window and paused intervals now (an open pause lasts to the end).
    CaptureSpec captureSpec() const;

    // For tests: the listener without a launched program.
    CollectorServer& server() { return m_server; }
    bool listen(std::string& error);

private:
    TraceBuildOptions buildOptions() const;
    void connectionAccepted(ConnectionId id, wire::Hello hello) override;
    void frameReceived(ConnectionId id, const wire::Frame& frame) override;
    void connectionClosed(ConnectionId id, bool byCollector) override;
    void connectionRejected(const std::string& reason) override;
    void receiverFailed(const std::string& error) override;

    SessionOptions m_options;
    std::int64_t m_baseNs = 0;
    std::shared_ptr<TextArena> m_arena = std::make_shared<TextArena>();
    CollectorServer m_server{*this};
    ChildProcess m_child;

    mutable std::mutex m_mutex; // guards the recorders and rejections
    std::map<ConnectionId, std::unique_ptr<ProcessRecorder>> m_recorders;
    std::vector<std::string> m_rejections;
    std::vector<std::string> m_receiverErrors;
    CaptureSpec m_capture; // guarded by m_mutex
    std::optional<TimeNs> m_pausedSince; // guarded by m_mutex
};

} // namespace ks::collector
