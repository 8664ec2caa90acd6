#pragma once
// The collector inside the traced process. Threads and lock order:
//  - application threads run CUPTI's buffer callbacks: they only take a buffer from the
//    pool or queue a completed one (m_queueMutex, held briefly, never while calling CUPTI);
//    they never allocate and never throw (C callers);
//  - our flush thread asks CUPTI for a (non-forced) flush every 100 ms, so data arrives while the
//    program runs and survives a crash (a forced flush at exit alone delivers nothing on
//    kill -9);
//  - our sender thread translates completed buffers into frames and writes them to the
//    socket; a slow collector only backs up the pool, and at its cap CUPTI drops and counts.
//    With consumer=drop it hands them back unread (CUPTI's own cost, for measurement).
//    After every periodic flush it also drains the NVTX rings (nvtx=own, see NvtxRecorder).
// Nothing runs in a forked child: its copy of this object is inert (see forkedChild()).
// Nothing blocks the application for long: connect and HELLO give up after ~1 s (we are
// inside its cuInit), and an exception on our threads detaches instead of terminating.
// CUPTI is reached only through ActivityApi (tests run all of this on a fake).
#include "collector/injection/activityapi.h"
#include "collector/injection/bufferpool.h"
#include "collector/injection/bufferqueue.h"
#include "collector/injection/connection.h"
#include "collector/injection/nvtxrecorder.h"
#include "collector/injection/recordtranslator.h"
#include "collector/injection/stagestats.h"
#include "collector/injection/torchoppayload.h"
#include "collector/protocol/injectionoptions.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <sys/types.h>

namespace ks::injection {

struct CollectorOptions : wire::InjectionOptions {
    std::string socketPath;
    std::string token;
};

// Reads the socket, token and KINETOSCOPE_COLLECTOR_OPTIONS (defaults for an item it cannot
// read: the host checked the list); false if we were not launched by a collector.
bool optionsFromEnvironment(CollectorOptions& options);

class ActivityCollector {
public:
    // Starts collecting; on any failure reports it to the collector (when connected) and
    // stays inert. Returns nullptr when inert. The object is never destroyed: CUPTI and our
    // detached threads may use it until the process is gone.
    // `api` must outlive the process's use of CUPTI (it is never destroyed either).
    static ActivityCollector* start(ActivityApi& api, const CollectorOptions& options);

    // atexit: stop flushing, forced flush, drain, GOODBYE; waits at most ~2 s.
    void shutdown();
    // pthread_atfork child handler: only flips flags and closes our fd copy.
    void forkedChild();
    // For benchmarks (kinetoscope_pause_cupti): CUPTI records nothing while paused, so that one
    // process can time the same loop with and without it, or hand CUPTI to torch.profiler for
    // a while. Pausing disables every kind and forces a flush (call it with the GPU idle: work
    // still running would come back unfinished), so no buffer of ours is left with CUPTI for
    // another client's callbacks to receive, and gives up our claim on CUPTI for good (so that
    // torch.profiler can subscribe); resuming enables the same kinds again. Seen with torch 2.11:
    // once torch.profiler has run, CUPTI stamps records with kineto's clock (ours follow it), so
    // the trace's later times are no longer the wall clock, only consistent among themselves.
    // False when detached or in a forked child.
    bool pauseCupti(bool paused);
    // Where the NVTX handlers record (nvtx=own); nullptr with nvtx=cupti.
    NvtxRecorder* nvtxRecorder() { return m_nvtx.get(); }
    // Where the PyTorch observer records operators; nullptr with ops=nvtx or nvtx=cupti.
    NvtxRecorder* torchOpRecorder() { return m_options.torchObserver ? m_nvtx.get() : nullptr; }

private:
    ActivityCollector(ActivityApi& api, const CollectorOptions& options);
    bool setUpCupti(std::string& error, wire::ErrorCode& code);
    ApiResult enableCupti();
    wire::ClockSample sampleClocks();
    bool sendHello();
    void sendError(wire::ErrorCode code, const std::string& message);
    bool inertHere() const;

    static void bufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords) noexcept;
    static void bufferCompleted(void* context, std::uint32_t streamId, std::uint8_t* buffer, std::size_t size,
                                std::size_t validSize) noexcept;
    // Thread bodies: each runs its loop, and detaches if that throws (out of memory).
    void flushLoop() noexcept;
    void sendLoop() noexcept;
    void flushPeriodically();
    void sendUntilStopped();
    void appendDropped(std::vector<std::uint8_t>& frames);
    void sendNvtx(std::vector<std::uint8_t>& frames);
    bool send(std::vector<std::uint8_t>& frames);
    void detach();

    ActivityApi& m_api;
    CollectorOptions m_options;
    Connection m_connection;
    BufferPool m_pool;
    RecordTranslator m_translator; // sender thread only
    TorchOpTexts m_torchOpTexts; // sender thread only
    StageStats m_stats; // filled only with stats=1
    std::unique_ptr<NvtxRecorder> m_nvtx;
    pid_t m_initPid = 0;
    std::atomic<bool> m_forked{false};
    std::atomic<bool> m_detached{false};
    std::atomic<std::uint64_t> m_cuptiDropped{0};
    std::atomic<std::uint64_t> m_completedBuffers{0};
    std::atomic<std::uint64_t> m_lostBuffers{0}; // completed, but could not be queued
    std::mutex m_pauseMutex; // serialises pauseCupti()
    std::atomic<bool> m_cuptiPaused{false}; // no periodic flushes meanwhile: CUPTI may be another client's

    std::mutex m_queueMutex; // guards everything below
    std::condition_variable m_queueChanged;
    BufferQueue m_queue;
    bool m_stopFlushing = false;
    bool m_stopSending = false;
    bool m_flushed = false; // a periodic flush passed: the sender drains the NVTX rings
    bool m_senderDone = false;
    bool m_takenOver = false;
};

} // namespace ks::injection
