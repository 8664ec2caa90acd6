#include "collector/injection/activitycollector.h"

#include "collector/protocol/environment.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <thread>
#include <unistd.h>

namespace ks::injection {
namespace {

// CUPTI's buffer callbacks are plain functions: they find the collector here.
std::atomic<ActivityCollector*> g_collector{nullptr};

// Connect and HELLO run inside the application's cuInit: a collector that stalls must not
// hang it, so we give up and leave the program untraced.
constexpr int kHandshakeTimeoutMs = 1000;
// Afterwards only our sender thread writes. A collector that takes nothing for this long is
// treated as gone: we detach rather than let CUPTI's buffers pile up in our pool.
constexpr int kStreamTimeoutMs = 10000;
// Each thread's NVTX ring: drained every flush period (100 ms), in which emit_nvtx with
// shapes wrote about 3 MB on a launch-bound loop. Pages are touched only as it fills.
constexpr std::size_t kNvtxRingBytes = 16u << 20;

std::int64_t clockNs(clockid_t id)
{
    timespec ts{};
    clock_gettime(id, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::vector<std::string> commandLine()
{
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> arguments;
    std::string current;
    for (char c : all) {
        if (c == '\0') {
            arguments.push_back(std::move(current));
            current.clear();
        } else {
            current += c;
        }
    }
    return arguments;
}

std::string executablePath()
{
    char path[4096];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string();
}

} // namespace

bool optionsFromEnvironment(CollectorOptions& options)
{
    const char* socket = std::getenv(wire::kSocketEnv);
    const char* token = std::getenv(wire::kTokenEnv);
    if (!socket || !*socket || !token)
        return false;
    options.socketPath = socket;
    options.token = token;
    if (const char* extra = std::getenv(wire::kOptionsEnv)) {
        std::string ignored; // nobody to tell here: the host rejected bad lists already
        wire::parseInjectionOptions(extra, options, ignored);
    }
    return true;
}

ActivityCollector::ActivityCollector(ActivityApi& api, const CollectorOptions& options)
    : m_api(api)
    , m_options(options)
    , m_pool(options.bufferBytes, options.maxBuffers)
    , m_translator(api)
    , m_nvtx(options.ownNvtx ? std::make_unique<NvtxRecorder>(api, kNvtxRingBytes) : nullptr)
    , m_initPid(getpid())
    , m_queue(options.maxBuffers)
{
}

ActivityCollector* ActivityCollector::start(ActivityApi& api, const CollectorOptions& options)
{
    auto* collector = new ActivityCollector(api, options);
    std::string error;
    if (!collector->m_connection.connect(options.socketPath, kHandshakeTimeoutMs, error) || !collector->sendHello()) {
        collector->m_connection.close();
        delete collector; // nobody to report to: stay inert, the program runs untraced
        return nullptr;
    }
    wire::ErrorCode code = wire::ErrorCode::CuptiFailure;
    if (!collector->setUpCupti(error, code)) {
        collector->sendError(code, error);
        collector->m_connection.close();
        delete collector;
        return nullptr;
    }
    collector->m_connection.setSendTimeout(kStreamTimeoutMs);
    g_collector.store(collector);
    try {
        std::thread([collector] { collector->flushLoop(); }).detach();
        std::thread([collector] { collector->sendLoop(); }).detach();
    } catch (...) {
        // No thread to run: stop collecting. The object stays (CUPTI or a started thread
        // may still use it), without an atexit handler.
        collector->detach();
        return nullptr;
    }
    return collector;
}

bool ActivityCollector::sendHello()
{
    wire::Hello hello;
    hello.token = m_options.token;
    hello.pid = getpid();
    hello.ppid = getppid();
    hello.executable = executablePath();
    hello.arguments = commandLine();
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    hello.host = host;
    hello.cuptiVersion = m_api.loadedVersion();
    hello.cuptiCompiledVersion = m_api.compiledVersion();
    hello.driverVersion = m_api.driverVersion();
    hello.runtimeVersion = m_api.runtimeVersion();
    hello.clock = sampleClocks();
    std::vector<std::uint8_t> frame;
    wire::appendFrame(frame, hello);
    return m_connection.sendAll(frame.data(), frame.size());
}

void ActivityCollector::sendError(wire::ErrorCode code, const std::string& message)
{
    wire::Error error;
    error.code = static_cast<std::int32_t>(code);
    error.message = message;
    std::vector<std::uint8_t> frame;
    wire::appendFrame(frame, error);
    m_connection.sendAll(frame.data(), frame.size());
}

wire::ClockSample ActivityCollector::sampleClocks()
{
    wire::ClockSample sample;
    sample.cuptiNs = m_api.timestampNs();
    sample.realtimeNs = clockNs(CLOCK_REALTIME);
    sample.monotonicNs = clockNs(CLOCK_MONOTONIC);
    return sample;
}

bool ActivityCollector::setUpCupti(std::string& error, wire::ErrorCode& code)
{
    const std::uint32_t loaded = m_api.loadedVersion();
    const std::uint32_t compiled = m_api.compiledVersion();
    if (!cuptiVersionsCompatible(loaded, compiled)) {
        code = wire::ErrorCode::CuptiVersion;
        error = "the process loaded CUPTI " + cuptiVersionText(loaded) + " but the collector was built for "
            + cuptiVersionText(compiled);
        return false;
    }
    ApiResult result = m_api.subscribe();
    if (result.status == ApiResult::Status::InUse) {
        code = wire::ErrorCode::CuptiInUse;
        error = "another CUPTI client (Nsight Systems, Nsight Compute, compute-sanitizer or a profiler "
                "inside the program) already owns CUPTI in this process";
        return false;
    }
    if (result.ok())
        result = enableCupti();
    if (!result.ok()) {
        error = std::move(result.error);
        return false;
    }
    return true;
}

ApiResult ActivityCollector::enableCupti()
{
    return m_api.enable(bufferRequested, bufferCompleted,
                        ActivitySelection{m_options.kinetoKindsOnly, m_options.allApiCalls, m_options.systemThreadIds,
                                          m_options.cuptiClock});
}

bool ActivityCollector::pauseCupti(bool paused)
{
    if (inertHere() || m_detached.load())
        return false;
    std::lock_guard lock(m_pauseMutex);
    if (paused == m_cuptiPaused)
        return true;
    if (paused) {
        m_api.disable();
        m_api.flush(true);
        m_api.unsubscribe();
    } else if (!enableCupti().ok()) {
        return false;
    }
    m_cuptiPaused = paused;
    return true;
}

bool ActivityCollector::inertHere() const { return m_forked.load(std::memory_order_relaxed) || getpid() != m_initPid; }

void ActivityCollector::bufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords) noexcept
{
    *buffer = nullptr;
    *size = 0;
    *maxNumRecords = 0;
    ActivityCollector* self = g_collector.load();
    if (!self || self->inertHere() || self->m_detached.load(std::memory_order_relaxed))
        return;
    // nullptr at the pool's cap: CUPTI then drops and counts the records.
    *buffer = self->m_pool.acquire();
    *size = *buffer ? self->m_pool.bufferBytes() : 0;
}

void ActivityCollector::bufferCompleted(void* context, std::uint32_t streamId, std::uint8_t* buffer, std::size_t,
                                        std::size_t validSize) noexcept
{
    ActivityCollector* self = g_collector.load();
    if (!self || !buffer || self->inertHere())
        return;
    // Outside our lock: CUPTI takes its own locks here (kineto hit an ABBA deadlock).
    if (const std::size_t dropped = self->m_api.droppedRecords(context, streamId))
        self->m_cuptiDropped.fetch_add(dropped, std::memory_order_relaxed);
    self->m_completedBuffers.fetch_add(1, std::memory_order_relaxed);
    if (self->m_options.stats)
        self->m_stats.completedBytes.fetch_add(validSize, std::memory_order_relaxed);
    bool queued = false;
    try {
        std::lock_guard lock(self->m_queueMutex);
        queued = self->m_queue.push({buffer, validSize});
    } catch (...) {
        // std::mutex::lock failed: lose this buffer rather than throw into CUPTI.
    }
    if (queued)
        self->m_queueChanged.notify_all();
    else
        self->m_lostBuffers.fetch_add(1, std::memory_order_relaxed);
}

void ActivityCollector::flushLoop() noexcept
{
    try {
        flushPeriodically();
    } catch (...) {
        detach(); // an exception must never terminate the application: stop collecting
    }
}

void ActivityCollector::flushPeriodically()
{
    const auto period = std::chrono::milliseconds(m_options.flushPeriodMs);
    std::unique_lock lock(m_queueMutex);
    while (!m_stopFlushing) {
        m_queueChanged.wait_for(lock, period, [this] { return m_stopFlushing; });
        if (m_stopFlushing || m_detached.load())
            break;
        lock.unlock(); // never hold our lock while calling CUPTI
        if (!m_cuptiPaused.load()) {
            const StageTimer timer(m_options.stats, m_stats.flushNs);
            m_api.flush(false);
        }
        m_stats.flushes.fetch_add(1, std::memory_order_relaxed);
        lock.lock();
        if (m_nvtx) {
            m_flushed = true;
            m_queueChanged.notify_all();
        }
    }
}

void ActivityCollector::sendLoop() noexcept
{
    try {
        sendUntilStopped();
    } catch (...) {
        detach(); // out of memory for frames, say: stop collecting, the program runs on
    }
    m_connection.close();
    // Completion is signalled in every case, so that shutdown() does not wait in vain.
    try {
        std::lock_guard lock(m_queueMutex);
        m_senderDone = true;
    } catch (...) {
        // shutdown() gives up after its timeout
    }
    m_queueChanged.notify_all();
}

void ActivityCollector::appendDropped(std::vector<std::uint8_t>& frames)
{
    wire::Dropped dropped;
    dropped.cuptiRecords = m_cuptiDropped.load() + (m_nvtx ? m_nvtx->dropped() : 0);
    dropped.poolExhausted = m_pool.refused() + m_lostBuffers.load();
    dropped.zeroTimestamps = m_translator.zeroTimestamps();
    dropped.undecodable = m_translator.undecodable();
    wire::appendFrame(frames, dropped);
}

void ActivityCollector::sendUntilStopped()
{
    auto nextClock = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    std::vector<std::uint8_t> frames;
    std::vector<CompletedBuffer> batch;
    batch.reserve(m_queue.capacity());
    std::unique_lock lock(m_queueMutex);
    for (;;) {
        m_queueChanged.wait_until(lock, nextClock, [this] { return !m_queue.empty() || m_flushed || m_stopSending; });
        if (m_queue.empty() && m_stopSending)
            break;
        m_flushed = false;
        batch.clear();
        for (CompletedBuffer completed; m_queue.pop(completed);)
            batch.push_back(completed);
        lock.unlock();
        for (const auto& completed : batch) {
            // One CUPTI buffer becomes one batch of frames and one write.
            frames.clear();
            if (!m_detached.load() && !m_options.dropBuffers) {
                const StageTimer timer(m_options.stats, m_stats.translateNs);
                m_translator.translate(completed.buffer, completed.validBytes, frames);
            }
            m_pool.release(completed.buffer, completed.validBytes);
            send(frames);
        }
        sendNvtx(frames);
        if (std::chrono::steady_clock::now() >= nextClock) {
            frames.clear();
            wire::Clock clock;
            clock.sample = sampleClocks();
            wire::appendFrame(frames, clock);
            appendDropped(frames);
            send(frames);
            nextClock = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        }
        lock.lock();
    }
    // The last NVTX records, final accounting, then GOODBYE (the collector treats EOF without
    // it as a crash).
    lock.unlock();
    sendNvtx(frames);
    lock.lock();
    frames.clear();
    if (m_takenOver) {
        wire::Error error;
        error.code = static_cast<std::int32_t>(wire::ErrorCode::CuptiTakenOver);
        error.message = "another CUPTI client took over during the run (e.g. torch.profiler): "
                        "our activity buffers stopped coming back";
        wire::appendFrame(frames, error);
    }
    appendDropped(frames);
    wire::Goodbye goodbye;
    goodbye.records = m_translator.records();
    goodbye.buffersRequested = m_pool.requested() - m_pool.refused();
    goodbye.buffersCompleted = m_completedBuffers.load();
    wire::appendFrame(frames, goodbye);
    lock.unlock();
    send(frames);
}

void ActivityCollector::sendNvtx(std::vector<std::uint8_t>& frames)
{
    if (!m_nvtx)
        return;
    frames.clear();
    const bool translate = !m_detached.load() && !m_options.dropBuffers;
    {
        const StageTimer timer(m_options.stats, m_stats.translateNs);
        m_nvtx->drain([&](const NvtxRecord& record, std::string_view text) {
            if (!translate)
                return;
            if (!(record.flags & NvtxRecord::TorchOp))
                return m_translator.nvtx(record, text, frames);
            // The observer's operator: the range emit_nvtx would have pushed.
            NvtxRecord range = record;
            range.flags &= ~NvtxRecord::TorchOp;
            m_translator.nvtx(range, m_torchOpTexts.text(text), frames);
        });
    }
    send(frames);
}

bool ActivityCollector::send(std::vector<std::uint8_t>& frames)
{
    if (frames.empty() || m_detached.load())
        return false;
    const StageTimer timer(m_options.stats, m_stats.sendNs);
    if (m_options.stats) {
        m_stats.writes.fetch_add(1, std::memory_order_relaxed);
        m_stats.sentBytes.fetch_add(frames.size(), std::memory_order_relaxed);
    }
    if (m_connection.sendAll(frames.data(), frames.size()))
        return true;
    detach();
    return false;
}

// The collector went away: stop producing data; the application runs on untouched.
void ActivityCollector::detach()
{
    if (m_detached.exchange(true))
        return;
    if (m_nvtx)
        m_nvtx->stop();
    m_api.disable();
}

void ActivityCollector::shutdown()
{
    if (inertHere())
        return;
    {
        std::lock_guard lock(m_queueMutex);
        m_stopFlushing = true;
    }
    m_queueChanged.notify_all();
    if (!m_detached.load()) {
        // FORCED only here: it also returns records of work still running (with end = 0).
        const StageTimer timer(m_options.stats, m_stats.forcedFlushNs);
        m_api.flush(true);
    }
    std::unique_lock lock(m_queueMutex);
    // After a forced flush every buffer we handed out has come back, unless another client
    // re-registered CUPTI's buffer callbacks and now receives them.
    const std::uint64_t handedOut = m_pool.requested() - m_pool.refused();
    m_takenOver = handedOut > m_completedBuffers.load();
    m_stopSending = true;
    m_queueChanged.notify_all();
    m_queueChanged.wait_for(lock, std::chrono::seconds(2), [this] { return m_senderDone; });
    if (m_options.stats) {
        const std::string line = m_stats.summary(static_cast<long>(m_initPid), m_completedBuffers.load(),
                                                 m_translator.records(), m_options.dropBuffers);
        std::fprintf(stderr, "%s\n", line.c_str());
    }
}

void ActivityCollector::forkedChild()
{
    m_forked.store(true);
    if (m_nvtx)
        m_nvtx->stop();
    m_connection.close();
}

} // namespace ks::injection
