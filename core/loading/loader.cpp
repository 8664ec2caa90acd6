#include "core/loading/loader.h"

#include "core/loading/bytesource.h"
#include "core/loading/eventparser.h"
#include "core/model/tracebuilder.h"
#include "core/model/utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <map>
#include <unordered_map>

namespace ks {

using json::Cursor;
using json::Status;

namespace {

constexpr std::size_t kMaxMetadataBytes = 1 << 20; // larger top-level values are skipped
constexpr const char* kInvalidUtf8 = "invalid UTF-8 (or a lone UTF-16 surrogate) was replaced with U+FFFD";

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
            if (!(v >= static_cast<double>(std::numeric_limits<T>::min()) && v < static_cast<double>(std::numeric_limits<T>::max())))
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

// Reads the stream through a growing window and turns each traceEvents entry into
// builder calls. Every parse step either completes or asks for more bytes and is
// retried from the same place, so chunk boundaries never change the result.
class TraceReader {
public:
    TraceReader(ByteSource& source, std::string displayName, LoadProgress* progress, std::size_t chunk)
        : m_source(source), m_displayName(std::move(displayName)), m_progress(progress),
          m_chunk(std::max<std::size_t>(chunk, 1)), m_buffer(std::max<std::size_t>(m_chunk, 64))
    {
    }

    LoadResult run();

private:
    enum class State { Start, ObjectMember, AfterObjectMember, Events, AfterEvents, Trailing, Done };

    bool refill();
    Status step(Cursor& c);
    Status stepStart(Cursor& c);
    Status stepObjectMember(Cursor& c);
    Status parseObjectMember(Cursor& c);
    Status stepEvents(Cursor& c);
    // An event whose text is not valid UTF-8: warns, and points its kept fields at valid copies.
    void keepValidText(RawEvent& ev, const char* firstBad);
    void handleEvent(const RawEvent& ev, std::uint64_t offset, std::uint32_t length);
    bool handleKeptEvent(const RawEvent& ev, std::uint64_t offset, std::uint32_t length);
    void handleSlice(const RawEvent& ev, JsonId pid, JsonId tid, StringId name, StringId category, bool device,
                     std::uint64_t offset, std::uint32_t length);
    void handleMetadataEvent(const RawEvent& ev, JsonId pid, JsonId tid);
    void addMemorySamples(const RawEvent& ev, JsonId pid);
    void handleBeginEnd(const RawEvent& ev, JsonId pid, JsonId tid, StringId name, StringId category, bool device,
                        std::uint64_t offset, std::uint32_t length);
    void handleAsync(const RawEvent& ev, JsonId pid, StringId name, StringId category, std::uint64_t offset,
                     std::uint32_t length);
    void closeOpenSlices();
    bool deviceCategory(StringId category);
    std::uint64_t offsetOf(const char* p) const { return m_base + static_cast<std::uint64_t>(p - m_buffer.data()); }
    void warnAt(const char* code, std::string message, const char* at)
    {
        m_builder.diagnostics().warn(code, std::move(message), offsetOf(at), m_eventIndex);
    }
    LoadResult fatal(std::string message, std::uint64_t offset);

    ByteSource& m_source;
    std::string m_displayName;
    LoadProgress* m_progress;
    std::size_t m_chunk;
    std::vector<char> m_buffer;
    std::size_t m_pos = 0, m_len = 0;
    std::uint64_t m_base = 0; // stream offset of m_buffer[0]
    bool m_eof = false;
    bool m_retriedAtEof = false;
    State m_state = State::Start;
    bool m_arrayForm = false;
    bool m_sawTraceEvents = false;
    std::int64_t m_eventIndex = 0;
    TimeNs m_maxTime = 0;

    TraceBuilder m_builder;
    EventParser m_parser;
    RawEvent m_event;
    std::string m_keyScratch;
    std::array<std::string, 6> m_validText; // see keepValidText()
    std::vector<std::int8_t> m_deviceCategory; // by category id: -1 unknown, 0 host, 1 device

    // The last X slice, for kineto's "flow event right after its slice" fast path.
    struct LastSlice {
        std::uint32_t index = kNoIndex;
        JsonId pid, tid;
        TimeNs start = 0;
    } m_lastSlice;

    struct OpenSlice {
        RawEvent event; // only its numbers and args are used later: its views die with the window
        StringId name, category;
        JsonId pid, tid;
        bool device = false;
        std::uint64_t offset = 0;
        std::uint32_t length = 0;
    };
    std::map<std::pair<JsonId, JsonId>, std::vector<OpenSlice>> m_openBegins;
    // (pid, is GPU, device id) -> (allocated, reserved) counter series
    std::map<std::tuple<JsonId, bool, std::int64_t>, std::pair<std::uint32_t, std::uint32_t>> m_memorySeries;
    std::unordered_map<StringId, JsonId> m_asyncTrackOfCategory;
    std::map<std::tuple<JsonId, StringId, std::uint64_t>, std::vector<OpenSlice>> m_openAsync;
};

bool TraceReader::refill()
{
    if (m_eof)
        return false;
    if (m_pos) {
        std::memmove(m_buffer.data(), m_buffer.data() + m_pos, m_len - m_pos);
        m_base += m_pos;
        m_len -= m_pos;
        m_pos = 0;
    }
    // Grow geometrically while one element spans the window, so a huge event costs
    // O(size) re-parsing in total, not O(size²).
    const std::size_t target = std::max(m_len * 2, m_len + m_chunk);
    if (m_buffer.size() < target)
        m_buffer.resize(target);
    const std::size_t before = m_len;
    while (m_len < target) {
        const std::size_t n = m_source.read(m_buffer.data() + m_len, target - m_len);
        if (n == 0) {
            m_eof = true;
            break;
        }
        m_len += n;
    }
    if (m_progress) {
        m_progress->bytesDone.store(m_source.inputConsumed(), std::memory_order_relaxed);
        m_progress->eventsDone.store(static_cast<std::uint64_t>(m_eventIndex), std::memory_order_relaxed);
    }
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
    while (m_state != State::Done) {
        Cursor c{m_buffer.data() + m_pos, m_buffer.data() + m_len};
        const Status st = step(c);
        m_pos = static_cast<std::size_t>(c.p - m_buffer.data());
        if (st == Status::Ok)
            continue;
        if (st == Status::Error) {
            if (m_state == State::Start || (m_state == State::ObjectMember && !m_sawTraceEvents))
                return fatal(c.errorWhat, offsetOf(c.errorAt));
            // e.g. an unescaped quote in a name: keep what came before, as if truncated.
            m_builder.diagnostics().add({Diagnostic::Severity::Error, "syntax-error",
                                         std::string("JSON syntax error: ") + c.errorWhat
                                             + "; the rest of the file was not loaded",
                                         offsetOf(c.errorAt), m_eventIndex});
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
                return fatal(ioError, m_base + m_len);
            return fatal(m_base + m_len == 0 ? "the file is empty" : "not a trace: no JSON object or array", 0);
        }
        if (!m_sawTraceEvents && !m_arrayForm)
            return fatal("the file ends before its \"traceEvents\" array (truncated)", m_base + m_pos);
        const bool onlyMissingBracket = m_arrayForm && m_state == State::Events && m_pos == m_len;
        if (!onlyMissingBracket && m_state != State::Trailing) {
            std::string why = ioError.empty() ? "the file ends early (truncated)" : ioError;
            m_builder.diagnostics().add({Diagnostic::Severity::Warning, "truncated",
                                         why + "; loaded the " + std::to_string(m_eventIndex)
                                             + " complete events before the cut",
                                         m_base + m_pos, m_eventIndex});
        }
        break;
    }
    if (!m_sawTraceEvents && !m_arrayForm)
        return fatal("not a trace: the top-level object has no \"traceEvents\" array", 0);
    closeOpenSlices();
    m_builder.setTextSource(m_source.textSource());
    if (m_progress)
        m_progress->bytesDone.store(m_source.inputSize(), std::memory_order_relaxed);
    LoadResult result;
    result.trace = std::make_shared<const Trace>(m_builder.finish());
    return result;
}

Status TraceReader::step(Cursor& c)
{
    switch (m_state) {
    case State::Start:
        return stepStart(c);
    case State::ObjectMember:
        return stepObjectMember(c);
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
    case State::Events:
        return stepEvents(c);
    case State::AfterEvents:
        m_state = m_arrayForm ? State::Trailing : State::AfterObjectMember;
        return Status::Ok;
    case State::Trailing:
        if (!json::skipSpace(c))
            return m_eof ? (m_state = State::Done, Status::Ok) : Status::Incomplete;
        warnAt("trailing-data", "data after the end of the trace was ignored", c.p);
        m_state = State::Done;
        return Status::Ok;
    case State::Done:
        return Status::Ok;
    }
    return Status::Ok;
}

Status TraceReader::stepStart(Cursor& c)
{
    if (c.end - c.p < 3 && !m_eof)
        return Status::Incomplete;
    const auto* u = reinterpret_cast<const unsigned char*>(c.p);
    if (c.end - c.p >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF)))
        return c.fail("the file is UTF-16; save the trace as UTF-8");
    if (c.end - c.p >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF)
        c.p += 3; // UTF-8 byte order mark
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
        m_builder.addMetadata(std::move(keyCopy), "\"(" + std::to_string(size) + " bytes, not kept)\"");
        m_state = State::AfterObjectMember;
        return Status::Ok;
    }
    std::string raw(valueStart, c.p);
    const std::size_t badValue = utf8::firstInvalidJson(raw);
    const std::size_t badKey = utf8::firstInvalid(keyCopy);
    if (badValue != utf8::kValid || badKey != utf8::kValid) {
        m_builder.diagnostics().warn("invalid-utf8", "top-level \"" + utf8::sanitized(keyCopy) + "\": " + kInvalidUtf8,
                                     badKey != utf8::kValid ? kNoOffset : offsetOf(valueStart) + badValue);
        raw = utf8::sanitizedJson(raw);
        keyCopy = utf8::sanitized(keyCopy);
    }
    if (keyCopy == "baseTimeNanoseconds") {
        std::int64_t base = 0;
        if (json::parseInt64(raw, base))
            m_builder.setBaseTimeNs(base);
    } else if (keyCopy == "deviceProperties") {
        m_builder.setDeviceProperties(parseDeviceProperties(raw));
    }
    m_builder.addMetadata(std::move(keyCopy), std::move(raw));
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
        const char* start = c.p;
        if (ch != '{') {
            // Not an object: count it so `info` still accounts for every entry.
            if (auto st = json::skipValue(c); st != Status::Ok) {
                c.p = start;
                return st;
            }
            m_builder.countEntry("<not an object>/");
            m_builder.keepEntry(offsetOf(start), static_cast<std::uint32_t>(c.p - start), '?');
            warnAt("not-an-object", "a traceEvents entry is not an object", start);
            ++m_eventIndex;
            continue;
        }
        const Status st = m_parser.parse(c, m_event, m_builder.strings());
        if (st != Status::Ok) {
            if (st == Status::Incomplete)
                c.p = start;
            return st;
        }
        const std::string_view text(start, static_cast<std::size_t>(c.p - start));
        if (const std::size_t bad = utf8::firstInvalidJson(text); bad != utf8::kValid) [[unlikely]]
            keepValidText(m_event, start + bad);
        handleEvent(m_event, offsetOf(start), static_cast<std::uint32_t>(text.size()));
        ++m_eventIndex;
    }
}

void TraceReader::keepValidText(RawEvent& ev, const char* firstBad)
{
    warnAt("invalid-utf8", kInvalidUtf8, firstBad);
    std::string_view* kept[] = {&ev.name, &ev.category, &ev.args.name, &ev.args.labels, &ev.scope, &ev.bp};
    static_assert(std::size(kept) == std::tuple_size_v<decltype(m_validText)>);
    for (std::size_t i = 0; i < std::size(kept); ++i)
        *kept[i] = utf8::validView(*kept[i], m_validText[i]);
}

bool TraceReader::deviceCategory(StringId category)
{
    if (category >= m_deviceCategory.size())
        m_deviceCategory.resize(category + 1, -1);
    auto& v = m_deviceCategory[category];
    if (v < 0)
        v = isDeviceCategory(m_builder.strings().view(category)) ? 1 : 0;
    return v == 1;
}

void TraceReader::handleEvent(const RawEvent& ev, std::uint64_t offset, std::uint32_t length)
{
    auto& strings = m_builder.strings();
    const StringId category = strings.intern(ev.category);
    m_builder.countEntry(ev.ph ? ev.ph : '?', category);
    auto& diag = m_builder.diagnostics();
    if (ev.duplicateKeys)
        diag.warn("duplicate-key", "an event repeats a key; the last value was used", offset, m_eventIndex);
    if (ev.droppedFields)
        diag.warn("wrong-type", "a field had a type that could not be used and was ignored", offset, m_eventIndex);
    if (handleKeptEvent(ev, offset, length))
        return;
    // Missing pid defaults to 0, missing tid to the pid (Trace Event Format).
    const JsonId pid = ev.hasPid ? ev.pid : JsonId::fromNumber(0);
    const JsonId tid = ev.hasTid ? ev.tid : pid;
    if (ev.ph == 'M') {
        handleMetadataEvent(ev, pid, tid);
        return;
    }
    m_maxTime = std::max(m_maxTime, ev.ts + (ev.hasDur && ev.dur > 0 ? ev.dur : 0));
    const StringId name = ev.hasName ? strings.intern(ev.name) : strings.intern("[No name]");
    const bool device = deviceCategory(category);
    switch (ev.ph) {
    case 'X':
        handleSlice(ev, pid, tid, name, category, device, offset, length);
        return;
    case 'B':
    case 'E':
        handleBeginEnd(ev, pid, tid, name, category, device, offset, length);
        return;
    case 'i':
    case 'I':
    case 'R': {
        InstantEvent e;
        e.pid = pid;
        e.tid = tid;
        e.device = device;
        e.scope = ev.scope == "g" ? InstantScope::Global : ev.scope == "p" ? InstantScope::Process : InstantScope::Thread;
        e.time = ev.ts;
        e.name = name;
        e.category = category;
        e.rawOffset = offset;
        e.rawLength = length;
        m_builder.addInstant(e);
        if (ev.args.totalAllocated != kNoId)
            addMemorySamples(ev, pid);
        return;
    }
    case 'C': {
        if (!ev.argsBegin)
            return;
        std::string base(ev.hasName ? ev.name : std::string_view());
        if (ev.hasId)
            base += " " + std::to_string(ev.id);
        for (const auto& [key, value] : numericArgs(ev.argsBegin, ev.argsEnd))
            m_builder.addCounterSample(pid, key.empty() ? base : base + " " + key, ev.ts, value);
        return;
    }
    case 's':
    case 't':
    case 'f': {
        FlowEvent f;
        f.phase = ev.ph == 's' ? FlowPhase::Start : ev.ph == 't' ? FlowPhase::Step : FlowPhase::End;
        f.category = category;
        f.name = name;
        f.id = ev.id;
        f.pid = pid;
        f.tid = tid;
        f.time = ev.ts;
        f.bindEnclosing = ev.bp == "e";
        f.eventIndex = m_eventIndex;
        f.rawOffset = offset;
        f.rawLength = length;
        if (m_lastSlice.index != kNoIndex && m_lastSlice.start == ev.ts && m_lastSlice.pid == pid && m_lastSlice.tid == tid)
            f.pendingSlice = m_lastSlice.index;
        m_builder.addFlowEvent(f);
        return;
    }
    case 'b':
    case 'n':
    case 'e':
        handleAsync(ev, pid, name, category, offset, length);
        return;
    default:
        return; // kept verbatim by handleKeptEvent
    }
}

// Entries the model does not represent faithfully are kept verbatim for the writer (offset
// and length only); some of them still feed the model (marks, counters, nestable async).
// Returns true when the entry needs nothing more (skipped, or kept only).
bool TraceReader::handleKeptEvent(const RawEvent& ev, std::uint64_t offset, std::uint32_t length)
{
    auto& diag = m_builder.diagnostics();
    const auto keep = [&] { m_builder.keepEntry(offset, length, ev.ph ? ev.ph : '?'); };
    if (!ev.ph) {
        diag.warn("missing-ph", "an event without \"ph\" was not shown (kept for Save As)", offset, m_eventIndex);
        keep();
        return true;
    }
    if (ev.ph == 'M') {
        keep();
        return false;
    }
    if (!ev.hasTs || ev.badTs || ev.badDur) {
        diag.warn(ev.hasTs || ev.badTs ? "bad-time" : "missing-ts",
                  ev.hasTs || ev.badTs ? "an event with a non-finite or out-of-range ts/dur was not shown"
                                       : "an event without \"ts\" was not shown",
                  offset, m_eventIndex);
        keep();
        return true;
    }
    switch (ev.ph) {
    case 'X':
        if (ev.hasDur)
            return false;
        diag.warn("missing-dur", "an X event without \"dur\" was not shown", offset, m_eventIndex);
        keep();
        return true;
    case 'B': case 'E': case 'i': case 'I':
        return false;
    case 's': case 't': case 'f':
        if (ev.hasId)
            return false;
        diag.warn("flow-without-id", "a flow event without \"id\" was not shown", offset, m_eventIndex);
        keep();
        return true;
    case 'R': case 'C': case 'b': case 'n': case 'e':
        keep();
        return false;
    default:
        diag.warn("ignored-phase", std::string("events of phase '") + ev.ph + "' are not shown (kept for Save As)",
                  offset, m_eventIndex);
        keep();
        return true;
    }
}

void TraceReader::handleSlice(const RawEvent& ev, JsonId pid, JsonId tid, StringId name, StringId category,
                              bool device, std::uint64_t offset, std::uint32_t length)
{
    if (ev.dur < 0) {
        m_builder.diagnostics().warn("negative-dur", "a slice with a negative duration was not shown", offset, m_eventIndex);
        m_builder.keepEntry(offset, length, ev.ph);
        return;
    }
    SliceEvent s;
    s.pid = pid;
    s.tid = tid;
    s.device = device;
    s.start = ev.ts;
    s.duration = ev.dur;
    s.name = name;
    s.category = category;
    s.rawOffset = offset;
    s.rawLength = length;
    s.correlation = ev.args.correlation;
    s.externalId = ev.args.externalId;
    s.eventIndex = m_eventIndex;
    const auto cls = m_builder.categoryClass(category);
    if (cls == SliceClass::Kernel || cls == SliceClass::Memcpy || cls == SliceClass::Memset)
        s.gpuOp = &ev.args.gpu;
    const std::uint32_t index = m_builder.addSlice(s);
    m_lastSlice = {index, pid, tid, ev.ts};
    if (ev.hasBindId && (ev.flowIn || ev.flowOut)) {
        FlowEvent f;
        f.category = m_builder.strings().intern("flow");
        f.id = ev.bindId;
        f.pid = pid;
        f.tid = tid;
        f.time = ev.ts;
        f.pendingSlice = index;
        f.eventIndex = m_eventIndex;
        if (ev.flowIn) {
            f.phase = FlowPhase::End;
            m_builder.addFlowEvent(f);
        }
        if (ev.flowOut) {
            f.phase = FlowPhase::Start;
            m_builder.addFlowEvent(f);
        }
    }
}

void TraceReader::addMemorySamples(const RawEvent& ev, JsonId pid)
{
    // kineto's [memory] instants carry the allocator totals after each (de)allocation;
    // merged per device across threads they give the memory curve (trace-format.md §4.2).
    const auto& a = ev.args;
    const bool gpu = a.deviceType == 1;
    auto [it, inserted] = m_memorySeries.try_emplace({pid, gpu, gpu ? a.deviceId : -1});
    if (inserted) {
        const std::string device = gpu ? "GPU " + std::to_string(a.deviceId) : std::string("CPU");
        it->second = {m_builder.counterSeries(pid, device + " memory allocated", true),
                      gpu ? m_builder.counterSeries(pid, device + " memory reserved", true) : kNoIndex};
    }
    m_builder.addCounterSample(it->second.first, ev.ts, static_cast<double>(a.totalAllocated));
    if (it->second.second != kNoIndex && a.totalReserved != kNoId)
        m_builder.addCounterSample(it->second.second, ev.ts, static_cast<double>(a.totalReserved));
}

void TraceReader::handleMetadataEvent(const RawEvent& ev, JsonId pid, JsonId tid)
{
    const auto& a = ev.args;
    if (ev.name == "process_name")
        m_builder.setProcessName(pid, a.name);
    else if (ev.name == "process_labels")
        m_builder.setProcessLabels(pid, a.labels);
    else if (ev.name == "process_sort_index" && a.hasSortIndex)
        m_builder.setProcessSortIndex(pid, a.sortIndex);
    else if (ev.name == "thread_name")
        m_builder.setThreadName(pid, tid, a.name);
    else if (ev.name == "thread_sort_index" && a.hasSortIndex)
        m_builder.setThreadSortIndex(pid, tid, a.sortIndex);
}

void TraceReader::handleBeginEnd(const RawEvent& ev, JsonId pid, JsonId tid, StringId name, StringId category,
                                 bool device, std::uint64_t offset, std::uint32_t length)
{
    auto& stack = m_openBegins[{pid, tid}];
    if (ev.ph == 'B') {
        stack.push_back({ev, name, category, pid, tid, device, offset, length});
        return;
    }
    // E closes the innermost open B with the same name (any name if E has none).
    auto it = stack.rbegin();
    if (ev.hasName) {
        while (it != stack.rend() && m_builder.strings().view(it->name) != ev.name)
            ++it;
    }
    if (it == stack.rend()) {
        m_builder.diagnostics().warn("unmatched-end", "an E event without a matching B was not shown", offset, m_eventIndex);
        m_builder.keepEntry(offset, length, 'E');
        return;
    }
    OpenSlice open = std::move(*it);
    stack.erase(std::next(it).base());
    RawEvent b = open.event;
    b.dur = std::max<TimeNs>(0, ev.ts - b.ts);
    handleSlice(b, open.pid, open.tid, open.name, open.category, open.device, open.offset, open.length);
}

void TraceReader::handleAsync(const RawEvent& ev, JsonId pid, StringId name, StringId category, std::uint64_t offset,
                              std::uint32_t length)
{
    // One async track per (process, category); overlapping spans get lanes of their own.
    auto [trackIt, newCategory] = m_asyncTrackOfCategory.try_emplace(category);
    if (newCategory)
        trackIt->second = JsonId::fromText(m_builder.strings().intern("async " + std::string(ev.category)));
    const JsonId track = trackIt->second;
    if (ev.ph == 'n') {
        InstantEvent e;
        e.pid = pid;
        e.tid = track;
        e.time = ev.ts;
        e.name = name;
        e.category = category;
        e.rawOffset = offset;
        e.rawLength = length;
        m_builder.addInstant(e);
        return;
    }
    auto& stack = m_openAsync[{pid, category, ev.id}];
    if (ev.ph == 'b') {
        stack.push_back({ev, name, category, pid, track, false, offset, length});
        return;
    }
    if (stack.empty()) {
        m_builder.diagnostics().warn("unmatched-end", "an async end without a begin was ignored", offset, m_eventIndex);
        return;
    }
    OpenSlice open = std::move(stack.back());
    stack.pop_back();
    RawEvent b = open.event;
    b.dur = std::max<TimeNs>(0, ev.ts - b.ts);
    handleSlice(b, pid, track, open.name, category, false, open.offset, open.length);
}

void TraceReader::closeOpenSlices()
{
    // Unclosed B (and async b) spans run to the end of the trace, marked incomplete.
    std::uint64_t unclosed = 0;
    auto close = [&](std::vector<OpenSlice>& stack) {
        for (auto& open : stack) {
            RawEvent b = open.event;
            b.dur = std::max<TimeNs>(0, m_maxTime - b.ts);
            handleSlice(b, open.pid, open.tid, open.name, open.category, open.device, open.offset, open.length);
            ++unclosed;
        }
        stack.clear();
    };
    for (auto& [key, stack] : m_openBegins)
        close(stack);
    for (auto& [key, stack] : m_openAsync)
        close(stack);
    if (unclosed)
        m_builder.diagnostics().add({Diagnostic::Severity::Warning, "unclosed-begin",
                                     "begin events without an end were drawn to the end of the trace (incomplete)",
                                     kNoOffset, kNoEventIndex},
                                    unclosed);
}

// The cost of a load follows the size of its input: a small file (or a fuzz input) gets a
// window of about its size, not a zeroed MiB, and no read-ahead thread, which only pays
// once there is more than one chunk to read. (Gzip: the window grows as one element needs.)
LoadResult loadFrom(std::unique_ptr<ByteSource> source, const std::string& displayName, LoadProgress* progress,
                    const LoadOptions& options)
{
    const std::uint64_t inputBytes = source->inputSize(); // 0: unknown
    const std::size_t chunk = inputBytes == 0 ? options.chunkBytes
                                              : std::min<std::uint64_t>(options.chunkBytes, 2 * inputBytes + 4096);
    if (options.readInBackgroundThread && (inputBytes == 0 || inputBytes > options.chunkBytes))
        source = prefetchingSource(std::move(source), chunk);
    TraceReader reader(*source, displayName, progress, chunk);
    return reader.run();
}

} // namespace

LoadResult loadTraceFile(const std::string& path, LoadProgress* progress, const LoadOptions& options)
{
    auto opened = openFileSource(path);
    if (!opened.source) {
        LoadResult r;
        r.fatal = Diagnostic{Diagnostic::Severity::Error, "fatal", path + ": " + opened.error, kNoOffset, kNoEventIndex};
        return r;
    }
    return loadFrom(std::move(opened.source), path, progress, options);
}

LoadResult loadTraceFromMemory(std::string text, std::string displayName, LoadProgress* progress,
                               const LoadOptions& options)
{
    LoadOptions o = options;
    return loadFrom(memorySource(std::move(text), o.chunkBytes), displayName, progress, o);
}

} // namespace ks
