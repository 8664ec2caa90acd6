#pragma once
// A live recording for the GUI. The collector session (listener, receiving thread,
// launched program) is owned by a worker object on its own QThread; as records arrive it
// builds a snapshot of the trace there and hands it to the GUI thread by a queued signal, so
// the timeline fills in while the program runs and the GUI never waits on the collector. An
// exception on the worker ends the recording with failed(), never std::terminate.
#include "collector/host/collectorsession.h"
#include "collector/host/launcher.h"
#include "collector/host/pythonsite.h"
#include "core/model/trace.h"

#include <QObject>
#include <QThread>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace ks {

class RecordingWorker;

// The injection options of a live recording: `sessionOptions`, else those the program would get
// (KINETOSCOPE_COLLECTOR_OPTIONS from the request's environment, else ours: the session's
// options replace that variable), with the live flush period (kLiveFlushMs) unless they name one.
std::string liveInjectionOptions(const collector::LaunchRequest& request, std::string sessionOptions);

// How to record, beyond what to launch: the File ▸ Record… dialog's choices.
struct RecordingOptions {
    std::optional<collector::PyTorchOps> pytorch; // unset: operators for a Python program
    collector::SessionOptions session; // capture range, delay, duration, step marker
    bool startPaused = false; // capture starts with Resume
    // Live snapshots hold the most recent slices only, at most this many (0: all of them), so
    // that the view keeps up past millions of events (collector::LiveTraceBuilder::setWindow).
    std::size_t liveWindowSlices = kLiveWindowSlices;
    static constexpr std::size_t kLiveWindowSlices = collector::LiveTraceBuilder::kDefaultWindowSlices;
};

class RecordingSession : public QObject {
    Q_OBJECT
public:
    // Makes the collector session on the worker thread (tests inject failures here).
    using SessionFactory = std::function<std::unique_ptr<collector::CollectorSession>()>;

    // `options.session` is used unless `makeSession` makes the session.
    explicit RecordingSession(collector::LaunchRequest request, QObject* parent = nullptr,
                              SessionFactory makeSession = {}, RecordingOptions options = {});
    // Stops recording (the program runs on untouched) and joins the worker thread.
    ~RecordingSession() override;

    // The worker looks for new records every kPollMs and builds a snapshot when there are
    // some, kMinSnapshotGapMs after the last one at the earliest (12 a second at most; a
    // snapshot past 1M events takes tens of ms). With the injection flushing every
    // kLiveFlushMs, a kernel reaches the screen about a flush, a poll and a build after it
    // ended. The live flush is shorter than `collect`'s 100 ms (unless the options name
    // flush_ms): the program's flush thread wakes twice as often, off the program's threads.
    static constexpr int kPollMs = 20;
    static constexpr int kMinSnapshotGapMs = 80;
    static constexpr int kLiveFlushMs = 50;

public Q_SLOTS:
    void start();
    // Stop now: connections close, traced processes detach and keep running.
    void stop();
    // Pause or resume the capture: the program stays traced, and what it does while paused is
    // left out of the trace (collector::CollectorSession::setPaused).
    void setPaused(bool paused);
    // Live snapshots from now on hold at most `slices` slices (0: all; RecordingOptions).
    void setLiveWindow(std::size_t slices);

Q_SIGNALS:
    // Queued from the worker thread; `status` is one line for the status bar.
    void snapshotReady(std::shared_ptr<const ks::Trace> trace, const QString& status);
    // The program ended (or stop() was called): the final, complete trace.
    void finished(std::shared_ptr<const ks::Trace> trace, const QString& summary);
    void failed(const QString& message);

private:
    QThread m_thread;
    RecordingWorker* m_worker = nullptr; // lives on m_thread, deleted when it finishes
};

} // namespace ks
