#include "core/loading/loader.h"

#include "core/loading/batchpipe.h"
#include "core/loading/bytesource.h"
#include "core/loading/entryparser.h"
#include "core/loading/eventassembler.h"
#include "core/model/tracebuilder.h"
#include "core/model/utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <thread>

#ifdef __linux__
#include <sched.h>
#endif

namespace ks {

using json::Cursor;
using json::Status;

namespace {

constexpr std::size_t kMaxMetadataBytes = 1 << 20; // larger top-level values are skipped
// For sizing the model up front: kineto writes ~270 bytes per event, compact traces ~100.
constexpr std::uint64_t kMinBytesPerEvent = 128;
constexpr unsigned kMaxParseWorkers = 8;

std::vector<DeviceProperties> parseDeviceProperties(const std::string& raw)
{
    std::vector<DeviceProperties> out;
    const auto doc = nlohmann::json::parse(raw, nullptr, false);
    if (!doc.is_array())
        return out;
    for (const auto& d : doc) {
        if (!d.is_object())
            continue;
        // Out-of-range numbers fall back rather than convert with undefined behaviour.
        auto num = [&](const char* key, auto fallback) {
            using T = decltype(fallback);
            const auto it = d.find(key);
            if (it == d.end() || !it->is_number())
                return fallback;
            const double v = it->get<double>();
            if (!(v >= static_cast<double>(std::numeric_limits<T>::min())
                  && v < static_cast<double>(std::numeric_limits<T>::max())))
                return fallback;
            return static_cast<T>(v);
        };
        DeviceProperties p;
        p.id = num("id", -1);
        if (auto it = d.find("name"); it != d.end() && it->is_string())
            p.name = it->get<std::string>();
        p.totalGlobalMem = num("totalGlobalMem", std::int64_t(0));
        p.computeMajor = num("computeMajor", 0);
        p.computeMinor = num("computeMinor", 0);
        p.numSms = num("numSms", 0);
        p.maxThreadsPerBlock = num("maxThreadsPerBlock", 0);
        p.maxThreadsPerMultiprocessor = num("maxThreadsPerMultiprocessor", 0);
        p.regsPerBlock = num("regsPerBlock", 0);
        p.regsPerMultiprocessor = num("regsPerMultiprocessor", 0);
        p.warpSize = num("warpSize", 32);
        p.sharedMemPerBlock = num("sharedMemPerBlock", std::int64_t(0));
        p.sharedMemPerMultiprocessor = num("sharedMemPerMultiprocessor", std::int64_t(0));
        p.sharedMemPerBlockOptin = num("sharedMemPerBlockOptin", std::int64_t(0));
        out.push_back(std::move(p));
    }
    return out;
}

// Reads the stream through a growing window. The top level is parsed here; traceEvents entries
// either here too, one at a time, or (parseInChunks) cut into runs of whole entries that go with
// their window to the pipe's parse workers. Each batch holds the window its events point into;
// the assembler turns batches into builder calls, in order. Every parse step either completes
// or asks for more bytes and is retried from the same place, so chunk boundaries never change
// the result.
class TraceReader {
public:
    TraceReader(ByteSource& source, std::string displayName, LoadProgress* progress, const LoadOptions& options)
        : m_source(source)
        , m_displayName(std::move(displayName))
        , m_progress(progress)
        , m_chunk(std::max<std::size_t>(options.chunkBytes, 1))
        , m_cutEntries(options.parseInChunks)
        , m_pipe(m_assembler, progress, options.assembleInParallel, parseWorkers(options))
    {
        m_batch.window.resize(std::max<std::size_t>(m_chunk, 64));
        reserveEvents(m_batch, m_batch.window.size());
    }

    LoadResult run();

private:
    enum class State { Start, ObjectMember, AfterObjectMember, Events, AfterEvents, Trailing, Done };

    // Room for a window's events before they are parsed: a ParsedEvent is 472 bytes, and each
    // reallocation as the vector grew moved them all (a quarter of a summarizing worker's cache
    // misses, issue 40). Kineto writes ~270 bytes per event, and a window may hold a chunk and a
    // tail carried over; compact traces still grow it, once per batch kept for reuse.
    static void reserveEvents(ParsedBatch& batch, std::size_t windowSize)
    {
        if (batch.events.capacity() < windowSize / 192)
            batch.events.reserve(windowSize / 192);
    }
    static unsigned parseWorkers(const LoadOptions& options)
    {
        if (!options.assembleInParallel || !options.parseInChunks)
            return 0;
        return std::clamp(options.parseWorkers ? options.parseWorkers : usableCores(), 1U, kMaxParseWorkers);
    }
    bool refill();
    // Passes the batch on; the unparsed tail of its window moves to the next batch's.
    void handOver(std::size_t windowSize);
    // Hands window[c.p, end) (whole entries) to the pipe to parse; c moves to the next window.
    void handOverEntries(Cursor& c, const char* end);
    Status step(Cursor& c);
    Status stepStart(Cursor& c);
    Status stepObjectMember(Cursor& c);
    Status parseObjectMember(Cursor& c);
    Status stepEvents(Cursor& c);
    char* window() { return m_batch.window.data(); }
    std::uint64_t offsetOf(const char* p) { return offsetIn(m_batch, p); }
    // Runs `step` on the assembler between the events parsed before and after it.
    void addStep(std::function<void(EventAssembler&)> step)
    {
        m_batch.steps.emplace_back(m_batch.events.size(), std::move(step));
    }
    void addDiagnostic(Diagnostic d)
    {
        addStep([d = std::move(d)](EventAssembler& a) { a.builder().diagnostics().add(d); });
    }
    void warnAt(const char* code, std::string message, const char* at)
    {
        warnBefore(m_batch, m_batch.events.size(), m_batch.entries, code, std::move(message), offsetOf(at));
    }
    LoadResult fatal(std::string message, std::uint64_t offset);

    ByteSource& m_source;
    std::string m_displayName;
    LoadProgress* m_progress;
    std::size_t m_chunk;
    bool m_cutEntries;
    EventAssembler m_assembler;
    BatchPipe m_pipe;
    ParsedBatch m_batch;
    std::size_t m_pos = 0, m_len = 0;
    bool m_eof = false;
    bool m_retriedAtEof = false;
    State m_state = State::Start;
    bool m_arrayForm = false;
    bool m_sawTraceEvents = false;

    EntryParser m_entries;
    std::string m_keyScratch;
};

void TraceReader::handOver(std::size_t windowSize)
{
    ParsedBatch next = m_pipe.spare();
    reserveEvents(next, windowSize);
    const std::size_t size = std::max(windowSize, m_len - m_pos);
    if (next.window.capacity() < size) { // a new block, not the old bytes copied over: only the tail below counts
        next.window.clear();
        next.window.reserve(size + m_chunk / 8); // the next window's tail may be a little longer
    }
    if (next.window.size() < size)
        next.window.resize(size);
    if (m_len > m_pos) // an empty window may have no storage: memcpy needs valid pointers even for 0 bytes
        std::memcpy(next.window.data(), window() + m_pos, m_len - m_pos);
    next.base = m_batch.base + m_pos;
    m_pipe.push(std::move(m_batch));
    m_batch = std::move(next);
    m_len -= m_pos;
    m_pos = 0;
}

void TraceReader::handOverEntries(Cursor& c, const char* end)
{
    m_batch.rawBegin = static_cast<std::size_t>(c.p - window());
    m_batch.rawEnd = static_cast<std::size_t>(end - window());
    m_pos = m_batch.rawEnd;
    handOver(m_batch.window.size());
    c = Cursor{window(), window() + m_len};
}

bool TraceReader::refill()
{
    if (m_eof)
        return false;
    // Grow geometrically while one element spans the window, so a huge event costs
    // O(size) re-parsing in total, not O(size²).
    const std::size_t target = std::max((m_len - m_pos) * 2, m_len - m_pos + m_chunk);
    if (!m_batch.events.empty() || !m_batch.steps.empty()) {
        handOver(target); // its events point into this window
    } else if (m_pos) {
        std::memmove(window(), window() + m_pos, m_len - m_pos);
        m_batch.base += m_pos;
        m_len -= m_pos;
        m_pos = 0;
    }
    if (m_batch.window.size() < target)
        m_batch.window.resize(target);
    const std::size_t before = m_len;
    while (m_len < target) {
        const std::size_t n = m_source.read(window() + m_len, target - m_len);
        if (n == 0) {
            m_eof = true;
            break;
        }
        m_len += n;
    }
    if (m_progress)
        m_progress->bytesDone.store(m_source.inputConsumed(), std::memory_order_relaxed);
    return m_len > before;
}

LoadResult TraceReader::fatal(std::string message, std::uint64_t offset)
{
    LoadResult r;
    r.fatal = Diagnostic{Diagnostic::Severity::Error, "fatal", m_displayName + ": " + std::move(message), offset,
                         kNoEventIndex};
    return r;
}

LoadResult TraceReader::run()
{
    if (m_progress)
        m_progress->bytesTotal.store(m_source.inputSize(), std::memory_order_relaxed);
    m_assembler.builder().reserveForEvents(m_source.expectedSize() / kMinBytesPerEvent);
    while (m_state != State::Done) {
        Cursor c{window() + m_pos, window() + m_len};
        const Status st = step(c);
        m_pos = static_cast<std::size_t>(c.p - window());
        if (st == Status::Ok)
            continue;
        if (st == Status::Error) {
            if (m_state == State::Start || (m_state == State::ObjectMember && !m_sawTraceEvents))
                return fatal(c.errorWhat, offsetOf(c.errorAt));
            // e.g. an unescaped quote in a name: keep what came before, as if truncated.
            stopOnSyntaxError(m_batch, c.errorWhat, offsetOf(c.errorAt));
            break;
        }
        if (m_progress && m_progress->cancelRequested.load(std::memory_order_relaxed)) {
            LoadResult r;
            r.cancelled = true;
            return r;
        }
        if (refill())
            continue;
        if (!m_retriedAtEof) { // steps may decide differently once they know the stream ended
            m_retriedAtEof = true;
            continue;
        }
        // End of stream in the middle of something.
        const std::string ioError = m_source.error();
        if (m_state == State::Start) {
            if (!ioError.empty())
                return fatal(ioError, m_batch.base + m_len);
            return fatal(m_batch.base + m_len == 0 ? "the file is empty" : "not a trace: no JSON object or array", 0);
        }
        if (!m_sawTraceEvents && !m_arrayForm)
            return fatal("the file ends before its \"traceEvents\" array (truncated)", m_batch.base + m_pos);
        const bool onlyMissingBracket = m_arrayForm && m_state == State::Events && m_pos == m_len;
        if (!onlyMissingBracket && m_state != State::Trailing) {
            std::string why = ioError.empty() ? "the file ends early (truncated)" : ioError;
            addStep([why = std::move(why), offset = m_batch.base + m_pos, entry = m_batch.entries](EventAssembler& a) {
                const std::int64_t events = a.entryIndex(entry); // workers may have parsed some
                a.builder().diagnostics().add(
                    {Diagnostic::Severity::Warning, "truncated",
                     why + "; loaded the " + std::to_string(events) + " complete events before the cut", offset,
                     events});
            });
        }
        break;
    }
    if (!m_sawTraceEvents && !m_arrayForm)
        return fatal("not a trace: the top-level object has no \"traceEvents\" array", 0);
    handOver(0);
    m_batch = {};
    m_pipe.finish();
    m_assembler.closeOpenSlices();
    auto& builder = m_assembler.builder();
    builder.setTextSource(m_source.textSource());
    if (m_progress)
        m_progress->bytesDone.store(m_source.inputSize(), std::memory_order_relaxed);
    LoadResult result;
    result.trace = std::make_shared<const Trace>(builder.finish());
    return result;
}

Status TraceReader::step(Cursor& c)
{
    switch (m_state) {
    case State::Start: return stepStart(c);
    case State::ObjectMember: return stepObjectMember(c);
    case State::AfterObjectMember:
        if (!json::skipSpace(c))
            return Status::Incomplete;
        if (*c.p == ',') {
            ++c.p;
            m_state = State::ObjectMember;
            return Status::Ok;
        }
        if (*c.p == '}') {
            ++c.p;
            m_state = State::Trailing;
            return Status::Ok;
        }
        return c.fail("expected ',' or '}' after a top-level value");
    case State::Events: return stepEvents(c);
    case State::AfterEvents: m_state = m_arrayForm ? State::Trailing : State::AfterObjectMember; return Status::Ok;
    case State::Trailing:
        if (!json::skipSpace(c))
            return m_eof ? (m_state = State::Done, Status::Ok) : Status::Incomplete;
        warnAt("trailing-data", "data after the end of the trace was ignored", c.p);
        m_state = State::Done;
        return Status::Ok;
    case State::Done: return Status::Ok;
    }
    return Status::Ok;
}

Status TraceReader::stepStart(Cursor& c)
{
    // A byte order mark only counts as the file's first bytes: after leading whitespace it is
    // junk, whichever window the whitespace ended in.
    if (offsetOf(c.p) == 0) {
        if (c.end - c.p < 3 && !m_eof)
            return Status::Incomplete;
        const auto* u = reinterpret_cast<const unsigned char*>(c.p);
        if (c.end - c.p >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF)))
            return c.fail("the file is UTF-16; save the trace as UTF-8");
        if (c.end - c.p >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF)
            c.p += 3; // UTF-8 byte order mark
    }
    if (!json::skipSpace(c))
        return Status::Incomplete;
    if (*c.p == '{') {
        ++c.p;
        m_state = State::ObjectMember;
        return Status::Ok;
    }
    if (*c.p == '[') {
        ++c.p;
        m_arrayForm = true;
        m_state = State::Events;
        return Status::Ok;
    }
    return c.fail("not a trace: the top level is not a JSON object or array");
}

Status TraceReader::stepObjectMember(Cursor& c)
{
    // Any Incomplete below restarts the whole member, so c.p goes back to its start.
    const char* memberStart = c.p;
    const Status st = parseObjectMember(c);
    if (st == Status::Incomplete)
        c.p = memberStart;
    return st;
}

Status TraceReader::parseObjectMember(Cursor& c)
{
    if (!json::skipSpace(c))
        return Status::Incomplete;
    if (*c.p == '}') { // empty object or trailing comma
        ++c.p;
        m_state = State::Trailing;
        return Status::Ok;
    }
    if (*c.p == ',') {
        ++c.p;
        return Status::Ok;
    }
    if (*c.p != '"')
        return c.fail("expected a key in the top-level object");
    std::string_view key;
    if (auto st = json::parseString(c, key, m_keyScratch); st != Status::Ok)
        return st;
    if (!json::skipSpace(c))
        return Status::Incomplete;
    if (*c.p != ':')
        return c.fail("expected ':' after a top-level key");
    ++c.p;
    if (!json::skipSpace(c))
        return Status::Incomplete;
    if (key == "traceEvents") {
        if (*c.p != '[')
            return c.fail("\"traceEvents\" is not an array");
        ++c.p;
        m_sawTraceEvents = true;
        m_state = State::Events;
        return Status::Ok;
    }
    std::string keyCopy(key);
    const char* valueStart = c.p;
    if (auto st = json::skipValue(c); st != Status::Ok)
        return st;
    const auto size = static_cast<std::size_t>(c.p - valueStart);
    if (size > kMaxMetadataBytes) { // stackFrames, samples, systemTraceEvents: not materialised
        addStep([key = std::move(keyCopy), size](EventAssembler& a) {
            a.builder().addMetadata(key, "\"(" + std::to_string(size) + " bytes, not kept)\"");
        });
        m_state = State::AfterObjectMember;
        return Status::Ok;
    }
    std::string raw(valueStart, c.p);
    const std::size_t badValue = utf8::firstInvalidJson(raw);
    const std::size_t badKey = utf8::firstInvalid(keyCopy);
    if (badValue != utf8::kValid || badKey != utf8::kValid) {
        addDiagnostic({Diagnostic::Severity::Warning, "invalid-utf8",
                       "top-level \"" + utf8::sanitized(keyCopy) + "\": " + utf8::kRepairedMessage,
                       badKey != utf8::kValid ? kNoOffset : offsetOf(valueStart) + badValue, kNoEventIndex});
        raw = utf8::sanitizedJson(raw);
        keyCopy = utf8::sanitized(keyCopy);
    }
    addStep([key = std::move(keyCopy), raw = std::move(raw)](EventAssembler& a) {
        auto& builder = a.builder();
        if (key == "baseTimeNanoseconds") {
            std::int64_t base = 0;
            if (json::parseInt64(raw, base))
                builder.setBaseTimeNs(base);
        } else if (key == "deviceProperties") {
            builder.setDeviceProperties(parseDeviceProperties(raw));
        }
        builder.addMetadata(key, raw);
    });
    m_state = State::AfterObjectMember;
    return Status::Ok;
}

Status TraceReader::stepEvents(Cursor& c)
{
    while (true) {
        if (!json::skipSpace(c))
            return Status::Incomplete;
        const char ch = *c.p;
        if (ch == ',') {
            ++c.p;
            continue;
        }
        if (ch == ']') {
            ++c.p;
            m_state = State::AfterEvents;
            return Status::Ok;
        }
        if (ch == '{' && m_cutEntries) {
            // The whole entries in the window go to a parse worker; the rest waits for more bytes,
            // or, at the end of the stream, is parsed here (and found truncated).
            bool plainAscii = false;
            const char* end = json::wholeEntriesEnd(c.p, c.end, &plainAscii);
            if (end > c.p) {
                m_batch.rawPlainAscii = plainAscii;
                handOverEntries(c, end);
                if (m_pipe.stopped()) { // a syntax error in entries parsed earlier: nothing after it loads
                    m_state = State::Done;
                    return Status::Ok;
                }
                continue;
            }
            if (!m_eof)
                return Status::Incomplete;
        }
        if (const Status st = m_entries.parseEntry(c, m_batch); st != Status::Ok)
            return st;
    }
}

// The cost of a load follows the size of its input: a small file (or a fuzz input) gets a
// window of about its size, not a zeroed MiB, and no read-ahead or assembling thread, which
// only pay once there is more than one chunk to read. (Gzip: the window grows as one element needs.)
LoadResult loadFrom(std::unique_ptr<ByteSource> source, const std::string& displayName, LoadProgress* progress,
                    const LoadOptions& options)
{
    const std::uint64_t inputBytes = source->inputSize(); // 0: unknown
    LoadOptions sized = options;
    if (inputBytes != 0)
        sized.chunkBytes = std::min<std::uint64_t>(options.chunkBytes, 2 * inputBytes + 4096);
    const bool severalChunks = inputBytes == 0 || inputBytes > options.chunkBytes;
    sized.assembleInParallel = options.assembleInParallel && severalChunks;
    sized.parseInChunks = options.parseInChunks && severalChunks;
    if (options.readInBackgroundThread && severalChunks && source->worthReadingAhead())
        source = prefetchingSource(std::move(source), sized.chunkBytes);
    TraceReader reader(*source, displayName, progress, sized);
    return reader.run();
}

} // namespace

unsigned usableCores()
{
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return static_cast<unsigned>(CPU_COUNT(&set));
#endif
    return std::max(1U, std::thread::hardware_concurrency());
}

LoadResult loadTraceFile(const std::string& path, LoadProgress* progress, const LoadOptions& options)
{
    auto opened = openFileSource(path);
    if (!opened.source) {
        LoadResult r;
        r.fatal =
            Diagnostic{Diagnostic::Severity::Error, "fatal", path + ": " + opened.error, kNoOffset, kNoEventIndex};
        return r;
    }
    return loadFrom(std::move(opened.source), path, progress, options);
}

LoadResult loadTraceFromMemory(std::string text, const std::string& displayName, LoadProgress* progress,
                               const LoadOptions& options)
{
    LoadOptions o = options;
    return loadFrom(memorySource(std::move(text), o.chunkBytes), displayName, progress, o);
}

} // namespace ks
