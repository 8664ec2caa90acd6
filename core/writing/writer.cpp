#include "core/writing/writer.h"

#include "core/loading/jsonscan.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ks {

using Json = nlohmann::ordered_json;

std::string formatMicroseconds(TimeNs ns)
{
    // Unsigned arithmetic so that INT64_MIN has a magnitude too.
    const bool negative = ns < 0;
    const std::uint64_t magnitude = negative ? ~static_cast<std::uint64_t>(ns) + 1 : static_cast<std::uint64_t>(ns);
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%s%llu.%03llu", negative ? "-" : "",
                  static_cast<unsigned long long>(magnitude / 1000),
                  static_cast<unsigned long long>(magnitude % 1000));
    return buffer;
}

namespace {

std::string dump(const Json& value)
{
    // Invalid UTF-8 in names (older kineto) becomes U+FFFD instead of throwing.
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The raw text of the top-level "args" value of one event ("" if none or unreadable).
std::string_view rawArgs(std::string_view event)
{
    json::Cursor c{event.data(), event.data() + event.size()};
    if (!json::skipSpace(c) || *c.p != '{')
        return {};
    ++c.p;
    std::string scratch;
    while (json::skipSpace(c) && *c.p != '}') {
        std::string_view key;
        if (json::parseString(c, key, scratch) != json::Status::Ok || !json::skipSpace(c) || *c.p != ':')
            return {};
        ++c.p;
        if (!json::skipSpace(c))
            return {};
        const char* valueStart = c.p;
        if (json::skipValue(c) != json::Status::Ok)
            return {};
        if (key == "args")
            return {valueStart, std::size_t(c.p - valueStart)};
        if (json::skipSpace(c) && *c.p == ',')
            ++c.p;
    }
    return {};
}

class Sink {
public:
    virtual ~Sink() = default;
    virtual bool write(std::string_view text) = 0;
};

class StreamSink final : public Sink {
public:
    explicit StreamSink(std::ostream& out) : m_out(out) {}
    bool write(std::string_view text) override
    {
        m_out.write(text.data(), static_cast<std::streamsize>(text.size()));
        return static_cast<bool>(m_out);
    }

private:
    std::ostream& m_out;
};

class FdSink final : public Sink {
public:
    explicit FdSink(int fd) : m_fd(fd) {}
    bool write(std::string_view text) override
    {
        while (!text.empty()) {
            const auto n = ::write(m_fd, text.data(), text.size());
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return false;
            text.remove_prefix(static_cast<std::size_t>(n));
        }
        return true;
    }

private:
    int m_fd;
};

class GzipSink final : public Sink {
public:
    explicit GzipSink(gzFile file) : m_file(file) {}
    bool write(std::string_view text) override
    {
        while (!text.empty()) {
            const auto chunk = static_cast<unsigned>(std::min<std::size_t>(text.size(), 1u << 30));
            if (gzwrite(m_file, text.data(), chunk) != static_cast<int>(chunk))
                return false;
            text.remove_prefix(chunk);
        }
        return true;
    }

private:
    gzFile m_file;
};

// One traceEvents entry. Variable parts go through nlohmann's dump; ts and dur are inserted
// as exact fixed-point numbers, which a JSON value cannot carry without passing through double.
class EventText {
public:
    EventText& field(std::string_view key, const Json& value)
    {
        separate(key);
        m_text += dump(value);
        return *this;
    }
    // JSON text already validated by nlohmann (args copied byte for byte from the source).
    EventText& validated(std::string_view key, std::string_view jsonText)
    {
        separate(key);
        m_text += jsonText;
        return *this;
    }
    EventText& time(std::string_view key, TimeNs ns)
    {
        separate(key);
        m_text += formatMicroseconds(ns);
        return *this;
    }
    std::string finish() { return std::move(m_text) + '}'; }

private:
    void separate(std::string_view key)
    {
        m_text += m_text.size() > 1 ? ",\"" : "\"";
        m_text += key; // keys are fixed ASCII identifiers of the format
        m_text += "\":";
    }
    std::string m_text = "{";
};

class TraceJsonWriter {
public:
    TraceJsonWriter(const Trace& trace, Sink& sink) : m_trace(trace), m_sink(sink) {}
    TraceWriteResult run();

private:
    Json jsonId(const JsonId& id) const
    {
        return id.isText ? Json(std::string(m_trace.str(id.text))) : Json(id.number);
    }
    Json str(StringId id) const { return std::string(m_trace.str(id)); }
    // Buffered: one sink write per MiB rather than one system call per event.
    void put(std::string_view text)
    {
        m_buffer += text;
        if (m_buffer.size() >= kBufferBytes)
            flush();
    }
    void flush()
    {
        if (m_ok && !m_buffer.empty() && !m_sink.write(m_buffer))
            m_ok = false;
        m_buffer.clear();
    }
    void event(std::string text)
    {
        put(m_result.eventsWritten++ ? ",\n" : "\n");
        put(text);
    }
    void writeTopLevel(std::string_view key, const std::string& rawJson);
    void writeMetadataEvents();
    void assignFlowIds();
    void writeSlices();
    void writeSlice(SliceId s, std::string_view rawText);
    Json sliceArgs(SliceId s, std::string_view rawText);
    Json synthesizedArgs(SliceId s) const;
    void writeInstants();
    void writeCounters();

    static constexpr std::size_t kBufferBytes = 1 << 20;
    const Trace& m_trace;
    Sink& m_sink;
    std::string m_buffer;
    bool m_ok = true;
    bool m_firstKey = true;
    TraceWriteResult m_result;
    std::vector<std::uint64_t> m_flowId; // per flow
};

void TraceJsonWriter::writeTopLevel(std::string_view key, const std::string& rawJson)
{
    Json value = Json::parse(rawJson, nullptr, false);
    if (value.is_discarded()) {
        ++m_result.unreadableArgs;
        return;
    }
    put(m_firstKey ? "{\n  " : ",\n  ");
    m_firstKey = false;
    put(dump(Json(std::string(key))));
    put(": ");
    put(dump(value));
}

Json devicePropertiesJson(const std::vector<DeviceProperties>& props)
{
    Json list = Json::array();
    for (const auto& d : props) {
        list.push_back(Json{{"id", d.id}, {"name", d.name}, {"totalGlobalMem", d.totalGlobalMem},
                            {"computeMajor", d.computeMajor}, {"computeMinor", d.computeMinor},
                            {"maxThreadsPerBlock", d.maxThreadsPerBlock},
                            {"maxThreadsPerMultiprocessor", d.maxThreadsPerMultiprocessor},
                            {"regsPerBlock", d.regsPerBlock}, {"warpSize", d.warpSize},
                            {"sharedMemPerBlock", d.sharedMemPerBlock}, {"numSms", d.numSms},
                            {"regsPerMultiprocessor", d.regsPerMultiprocessor},
                            {"sharedMemPerBlockOptin", d.sharedMemPerBlockOptin},
                            {"sharedMemPerMultiprocessor", d.sharedMemPerMultiprocessor}});
    }
    return list;
}

TraceWriteResult TraceJsonWriter::run()
{
    // kineto's key order: metadata, then traceEvents, then distributedInfo and traceName.
    const auto isTrailer = [](std::string_view k) { return k == "distributedInfo" || k == "traceName"; };
    for (const auto& [key, raw] : m_trace.metadata()) {
        if (!isTrailer(key))
            writeTopLevel(key, raw);
    }
    if (!m_trace.metadataValue("deviceProperties") && !m_trace.deviceProperties().empty())
        writeTopLevel("deviceProperties", dump(devicePropertiesJson(m_trace.deviceProperties())));
    if (!m_trace.metadataValue("baseTimeNanoseconds") && m_trace.baseTimeNs() != 0)
        writeTopLevel("baseTimeNanoseconds", std::to_string(m_trace.baseTimeNs()));

    put(m_firstKey ? "{\n  \"traceEvents\": [" : ",\n  \"traceEvents\": [");
    m_firstKey = false;
    writeMetadataEvents();
    assignFlowIds();
    writeSlices();
    writeInstants();
    writeCounters();
    put("\n  ]");
    for (const auto& [key, raw] : m_trace.metadata()) {
        if (isTrailer(key))
            writeTopLevel(key, raw);
    }
    put("\n}\n");
    flush();
    m_result.ok = m_ok;
    if (!m_ok)
        m_result.error = "write failed";
    return m_result;
}

void TraceJsonWriter::writeMetadataEvents()
{
    const auto meta = [&](const char* name, const Json& pid, const Json& tid, Json args) {
        event(EventText().field("name", name).field("ph", "M").time("ts", 0).field("pid", pid)
                  .field("tid", tid).field("args", args).finish());
    };
    // A host and a device process can share a pid (§2.1 of trace-format.md): name it once.
    std::set<JsonId> namedPids;
    for (const auto& p : m_trace.processes()) {
        if (!namedPids.insert(p.pid).second)
            continue;
        const Json pid = jsonId(p.pid);
        if (!p.name.empty())
            meta("process_name", pid, 0, Json{{"name", p.name}});
        if (!p.labels.empty())
            meta("process_labels", pid, 0, Json{{"labels", p.labels}});
        if (p.hasSortIndex)
            meta("process_sort_index", pid, 0, Json{{"sort_index", p.sortIndex}});
    }
    for (const auto& t : m_trace.tracks()) {
        const Json pid = jsonId(m_trace.processes()[t.process].pid);
        if (!t.name.empty())
            meta("thread_name", pid, jsonId(t.tid), Json{{"name", t.name}});
        if (t.hasSortIndex)
            meta("thread_sort_index", pid, jsonId(t.tid), Json{{"sort_index", t.sortIndex}});
    }
}

// ac2g flows keep their CUPTI correlation id, as kineto writes them; other flows (fwdbwd)
// get fresh ids. A 1→N flow (CUDA graph launch) shares one id between all its ends.
void TraceJsonWriter::assignFlowIds()
{
    const auto& flows = m_trace.flows();
    const auto& slices = m_trace.slices();
    m_flowId.assign(flows.size(), 0);
    using Key = std::tuple<StringId, StringId, SliceId>;
    std::map<Key, std::uint64_t> idOfStart;
    std::map<std::pair<StringId, StringId>, std::set<std::uint64_t>> used;
    const StringId ac2g = m_trace.strings().find("ac2g");
    for (const auto& half : m_trace.unpairedFlowHalves()) // they keep their ids
        used[{half.category, half.name}].insert(half.id);
    std::vector<std::uint32_t> fresh;
    for (std::uint32_t i = 0; i < flows.size(); ++i) {
        const auto& f = flows[i];
        const Key key{f.category, f.name, f.from};
        if (auto it = idOfStart.find(key); it != idOfStart.end()) {
            m_flowId[i] = it->second;
            continue;
        }
        const std::int64_t corr = f.from == kNoSlice ? kNoId : slices.correlation[f.from];
        auto& usedIds = used[{f.category, f.name}];
        if (f.category == ac2g && corr != kNoId && corr >= 0 && usedIds.insert(std::uint64_t(corr)).second) {
            m_flowId[i] = idOfStart[key] = std::uint64_t(corr);
        } else {
            fresh.push_back(i);
        }
    }
    std::map<std::pair<StringId, StringId>, std::uint64_t> next;
    for (const auto i : fresh) {
        const auto& f = flows[i];
        const Key key{f.category, f.name, f.from};
        if (auto it = idOfStart.find(key); it != idOfStart.end()) {
            m_flowId[i] = it->second;
            continue;
        }
        auto& usedIds = used[{f.category, f.name}];
        auto& candidate = next[{f.category, f.name}];
        do {
            ++candidate;
        } while (usedIds.count(candidate));
        usedIds.insert(candidate);
        m_flowId[i] = idOfStart[key] = candidate;
    }
}

void TraceJsonWriter::writeSlices()
{
    // Source file order (one pass over the source, and kineto's layout is kept); slices
    // without source text follow in table order.
    const auto& slices = m_trace.slices();
    std::vector<SliceId> withText, withoutText;
    for (SliceId s = 0; s < slices.size(); ++s)
        (slices.rawLength[s] ? withText : withoutText).push_back(s);
    m_trace.forEachEventText(withText, [&](SliceId s, std::string_view text) { writeSlice(s, text); });
    for (const SliceId s : withoutText)
        writeSlice(s, {});
}

void TraceJsonWriter::writeSlice(SliceId s, std::string_view rawText)
{
    const auto& slices = m_trace.slices();
    const auto& track = m_trace.tracks()[m_trace.trackOf(s)];
    const Json pid = jsonId(m_trace.processes()[track.process].pid);
    const Json tid = jsonId(track.tid);
    EventText text;
    text.field("ph", "X");
    text.field("cat", str(slices.category[s])).field("name", str(slices.name[s])).field("pid", pid).field("tid", tid);
    text.time("ts", slices.start[s]).time("dur", slices.duration[s]);
    // Args are copied as written, once nlohmann has validated them: exact numbers and key
    // order, and no DOM per event. Text it rejects (NaN, broken escapes) is rebuilt instead.
    std::string_view args = rawArgs(rawText);
    // The collector links ops to their calls and kernels after their text was written:
    // the model's External id joins the args kineto would have given them.
    std::string linkedArgs;
    if (!rawText.empty() && slices.externalId[s] != kNoId && args.find("\"External id\"") == std::string_view::npos) {
        linkedArgs = "{\"External id\":" + std::to_string(slices.externalId[s]);
        if (args.size() > 2)
            linkedArgs.append(",").append(args.substr(1));
        else
            linkedArgs += '}';
        args = linkedArgs;
    }
    if (!args.empty() && Json::accept(args)) {
        text.validated("args", args);
    } else {
        const Json rebuilt = sliceArgs(s, rawText);
        if (!rebuilt.is_null())
            text.field("args", rebuilt);
    }
    event(text.finish());

    // Flow halves directly after their slice, with its pid, tid and ts, so that a reader
    // binds them to this slice even when a parent starts at the same time.
    const auto flowEvent = [&](const char* ph, std::uint64_t id, StringId category, StringId name) {
        EventText f;
        f.field("ph", ph).field("id", id).field("pid", pid).field("tid", tid);
        f.time("ts", slices.start[s]).field("cat", str(category)).field("name", str(name));
        if (*ph == 'f')
            f.field("bp", "e");
        event(f.finish());
    };
    std::set<std::uint64_t> startedIds;
    for (const auto i : m_trace.outgoingFlows(s)) {
        const auto& flow = m_trace.flows()[i];
        if (flow.to != kNoSlice && startedIds.insert(m_flowId[i]).second)
            flowEvent("s", m_flowId[i], flow.category, flow.name);
    }
    for (const auto i : m_trace.incomingFlows(s)) {
        const auto& flow = m_trace.flows()[i];
        if (flow.from != kNoSlice)
            flowEvent("f", m_flowId[i], flow.category, flow.name);
    }
    for (const auto& half : m_trace.unpairedFlowHalves(s))
        flowEvent(half.isStart ? "s" : "f", half.id, half.category, half.name);
}

Json TraceJsonWriter::sliceArgs(SliceId s, std::string_view rawText)
{
    if (m_trace.slices().rawLength[s] == 0)
        return synthesizedArgs(s);
    Json parsed = Json::parse(rawText, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) {
        ++m_result.unreadableArgs;
        return synthesizedArgs(s);
    }
    auto it = parsed.find("args");
    return it == parsed.end() ? Json() : std::move(*it);
}

// Slices built without JSON text (the collector) get the args kineto would have written
// from the fields the model keeps.
Json TraceJsonWriter::synthesizedArgs(SliceId s) const
{
    const auto& slices = m_trace.slices();
    Json args = Json::object();
    if (slices.externalId[s] != kNoId)
        args["External id"] = slices.externalId[s];
    if (const GpuOpInfo* g = m_trace.gpuOpInfo(s)) {
        if (g->device >= 0)
            args["device"] = g->device;
        if (g->stream >= 0)
            args["stream"] = g->stream;
    }
    if (slices.correlation[s] != kNoId)
        args["correlation"] = slices.correlation[s];
    if (const GpuOpInfo* g = m_trace.gpuOpInfo(s)) {
        if (g->registersPerThread >= 0)
            args["registers per thread"] = g->registersPerThread;
        if (g->sharedMemory >= 0)
            args["shared memory"] = g->sharedMemory;
        if (std::isinf(g->blocksPerSm))
            args["blocks per SM"] = "inf";
        else if (g->blocksPerSm >= 0)
            args["blocks per SM"] = g->blocksPerSm;
        if (g->warpsPerSm >= 0)
            args["warps per SM"] = g->warpsPerSm;
        if (g->grid[0] > 0)
            args["grid"] = {g->grid[0], g->grid[1], g->grid[2]};
        if (g->block[0] > 0)
            args["block"] = {g->block[0], g->block[1], g->block[2]};
        if (g->estAchievedOccupancyPct >= 0)
            args["est. achieved occupancy %"] = g->estAchievedOccupancyPct;
        if (g->bytes >= 0)
            args["bytes"] = g->bytes;
    }
    return args.empty() ? Json() : args;
}

void TraceJsonWriter::writeInstants()
{
    const auto& instants = m_trace.instants();
    std::vector<std::uint32_t> all(instants.size());
    std::iota(all.begin(), all.end(), 0u);
    m_trace.forEachInstantText(all, [&](std::uint32_t i, std::string_view raw) {
        Json pid = 0, tid = 0, args;
        if (!raw.empty()) {
            Json parsed = Json::parse(raw, nullptr, false);
            if (parsed.is_object()) {
                pid = parsed.value("pid", Json(0));
                tid = parsed.value("tid", Json(0));
                args = parsed.value("args", Json());
            } else {
                ++m_result.unreadableArgs;
            }
        }
        const char* scope = "g";
        if (instants.scope[i] == InstantScope::Thread && instants.track[i] != kNoIndex) {
            const auto& track = m_trace.tracks()[instants.track[i]];
            pid = jsonId(m_trace.processes()[track.process].pid);
            tid = jsonId(track.tid);
            scope = "t";
        } else if (instants.scope[i] == InstantScope::Process && instants.process[i] != kNoIndex) {
            pid = jsonId(m_trace.processes()[instants.process[i]].pid);
            scope = "p";
        }
        EventText text;
        text.field("ph", "i");
        if (instants.category[i] != kEmptyString)
            text.field("cat", str(instants.category[i]));
        text.field("s", scope).field("name", str(instants.name[i])).field("pid", pid).field("tid", tid);
        text.time("ts", instants.time[i]);
        if (!args.is_null())
            text.field("args", args);
        event(text.finish());
    });
}

void TraceJsonWriter::writeCounters()
{
    for (const auto& series : m_trace.counters()) {
        if (series.derived)
            continue; // a reader makes it again from the [memory] instants written above
        // The series is named "<event name> <arg key>"; splitting at the last space gives a
        // name and key that read back as the same series name.
        const auto space = series.name.rfind(' ');
        const std::string name = space == std::string::npos ? series.name : series.name.substr(0, space);
        const std::string key = space == std::string::npos ? std::string() : series.name.substr(space + 1);
        const Json pid = jsonId(series.pid);
        for (std::size_t i = 0; i < series.time.size(); ++i) {
            event(EventText().field("ph", "C").field("name", name).field("pid", pid)
                      .time("ts", series.time[i]).field("args", Json{{key, series.value[i]}}).finish());
        }
    }
}

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string errnoText(const char* what, const std::string& path)
{
    return std::string(what) + " " + path + ": " + std::strerror(errno);
}

} // namespace

TraceWriteResult writeTraceJson(const Trace& trace, std::ostream& out)
{
    StreamSink sink(out);
    return TraceJsonWriter(trace, sink).run();
}

TraceWriteResult writeTraceFile(const Trace& trace, const std::string& path, const TraceWriteOptions& options)
{
    TraceWriteResult result;
    std::string tempPath = path + ".tmp.XXXXXX";
    const int fd = ::mkstemp(tempPath.data());
    if (fd < 0) {
        result.error = errnoText("cannot create a temporary file for", path);
        return result;
    }
    ::fchmod(fd, 0644);
    const bool gzip = options.compression == TraceWriteOptions::Compression::Gzip
                   || (options.compression == TraceWriteOptions::Compression::ByExtension && endsWith(path, ".gz"));
    bool ok = true;
    if (gzip) {
        // gzclose closes the descriptor it was given; keep our own to fsync afterwards.
        const int gzFd = ::dup(fd);
        const std::string mode = "wb" + std::to_string(std::clamp(options.gzipLevel, 1, 9));
        gzFile file = gzFd >= 0 ? gzdopen(gzFd, mode.c_str()) : nullptr;
        if (!file) {
            if (gzFd >= 0)
                ::close(gzFd);
            ok = false;
        } else {
            GzipSink sink(file);
            result = TraceJsonWriter(trace, sink).run();
            ok = gzclose(file) == Z_OK && result.ok;
        }
    } else {
        FdSink sink(fd);
        result = TraceJsonWriter(trace, sink).run();
        ok = result.ok;
    }
    if (ok && ::fsync(fd) != 0)
        ok = false;
    const int savedErrno = errno;
    if (::close(fd) != 0)
        ok = false;
    if (ok && ::rename(tempPath.c_str(), path.c_str()) != 0) {
        result.error = errnoText("cannot rename the temporary file onto", path);
        ::unlink(tempPath.c_str());
        result.ok = false;
        return result;
    }
    if (!ok) {
        errno = savedErrno;
        result.error = errnoText("cannot write", path);
        ::unlink(tempPath.c_str());
        result.ok = false;
        return result;
    }
    result.ok = true;
    return result;
}

} // namespace ks
