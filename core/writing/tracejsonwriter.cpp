#include "core/writing/tracejsonwriter.h"

#include "core/loading/jsonscan.h"
#include "core/model/boundedjson.h"
#include "core/version.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <tuple>

namespace ks {

using Json = TraceJsonWriter::Json;

namespace {

// Real traces nest 2-5 levels; deeper values are left out of rewritten entries (and counted).
constexpr int kMaxRewrittenDepth = 200;

Json devicePropertiesJson(const std::vector<DeviceProperties>& props)
{
    Json list = Json::array();
    for (const auto& d : props) {
        list.push_back(Json{{"id", d.id},
                            {"name", d.name},
                            {"totalGlobalMem", d.totalGlobalMem},
                            {"computeMajor", d.computeMajor},
                            {"computeMinor", d.computeMinor},
                            {"maxThreadsPerBlock", d.maxThreadsPerBlock},
                            {"maxThreadsPerMultiprocessor", d.maxThreadsPerMultiprocessor},
                            {"regsPerBlock", d.regsPerBlock},
                            {"warpSize", d.warpSize},
                            {"sharedMemPerBlock", d.sharedMemPerBlock},
                            {"numSms", d.numSms},
                            {"regsPerMultiprocessor", d.regsPerMultiprocessor},
                            {"sharedMemPerBlockOptin", d.sharedMemPerBlockOptin},
                            {"sharedMemPerMultiprocessor", d.sharedMemPerMultiprocessor}});
    }
    return list;
}

constexpr std::string_view kWriterVersionKey = "kinetoscopeVersion"; // which Kinetoscope wrote the file

bool isTrailerKey(std::string_view k) { return k == "distributedInfo" || k == "traceName"; }

} // namespace

// Source text as a DOM to rewrite: repaired where strict JSON rejects what the loader read
// (the written file must reload with what this one had), bounded in depth because the DOM
// is copied and dumped recursively. Discarded if even the repaired text is not JSON.
Json TraceJsonWriter::parseSource(std::string_view text)
{
    bool truncated = false;
    Json parsed = parseBoundedJson<Json>(text, kMaxRewrittenDepth, &truncated);
    if (parsed.is_discarded()) {
        const RepairedJson repaired = repairJson(text);
        if (repaired.nulledNonFinite)
            ++m_nonFinite;
        truncated = false;
        parsed = parseBoundedJson<Json>(repaired.text, kMaxRewrittenDepth, &truncated);
    }
    if (truncated && !parsed.is_discarded())
        lose("values nested deeper than " + std::to_string(kMaxRewrittenDepth) + " levels (left out of their entry)");
    return parsed;
}

void TraceJsonWriter::writeTopLevel(std::string_view key, const std::string& rawJson)
{
    const Json value = parseSource(rawJson);
    if (value.is_discarded()) {
        ++m_result.unreadableArgs;
        lose("top-level values that are not valid JSON");
        return;
    }
    put(m_firstKey ? "{\n  " : ",\n  ");
    m_firstKey = false;
    put(dumpJson(Json(std::string(key))));
    put(": ");
    put(dumpJson(value));
}

// kineto's key order: metadata, then traceEvents, then distributedInfo and traceName. Merged
// inputs: the first input's value of a key wins; a differing later value is noted.
void TraceJsonWriter::writeTopLevelKeys(bool trailer)
{
    std::map<std::string, std::string> firstValue;
    for (std::size_t k = 0; k < m_inputs.size(); ++k) {
        for (const auto& [key, raw] : m_inputs[k]->metadata()) {
            if (isTrailerKey(key) != trailer || key == kWriterVersionKey)
                continue;
            const auto [it, inserted] = firstValue.try_emplace(key, raw);
            if (inserted)
                writeTopLevel(key, raw);
            else if (it->second != raw && k > 0)
                m_result.notes.push_back("\"" + key + "\" of input " + std::to_string(k + 1)
                                         + " differs from the first input's; the first one was kept");
        }
    }
    if (trailer)
        return;
    writeTopLevel(kWriterVersionKey, dumpJson(Json(kVersion)));
    const Trace& first = *m_inputs.front();
    if (!firstValue.count("deviceProperties") && !first.deviceProperties().empty())
        writeTopLevel("deviceProperties", dumpJson(devicePropertiesJson(first.deviceProperties())));
    if (!firstValue.count("baseTimeNanoseconds") && first.baseTimeNs() != 0)
        writeTopLevel("baseTimeNanoseconds", std::to_string(first.baseTimeNs()));
    for (std::size_t k = 1; k < m_inputs.size(); ++k) {
        if (m_inputs[k]->baseTimeNs() != first.baseTimeNs()) {
            m_result.notes.push_back("input " + std::to_string(k + 1)
                                     + " has another baseTimeNanoseconds; its times are written as they were");
        }
    }
}

TraceWriteResult TraceJsonWriter::run()
{
    writeTopLevelKeys(false);
    put(m_firstKey ? "{\n  \"traceEvents\": [" : ",\n  \"traceEvents\": [");
    m_firstKey = false;
    for (m_k = 0; m_k < m_inputs.size(); ++m_k)
        writeInput();
    put("\n  ]");
    writeTopLevelKeys(true);
    put("\n}\n");
    flush();
    for (const auto& [what, n] : m_lost)
        m_result.lost.push_back({what, n});
    if (m_nonFinite)
        m_result.notes.push_back(std::to_string(m_nonFinite) + " entries had NaN or Infinity numbers, written as null");
    m_result.ok = m_ok;
    if (!m_ok)
        m_result.error = "write failed";
    return m_result;
}

bool TraceJsonWriter::hasKept(char phase) const
{
    const auto& kept = trace().keptEntries();
    return std::any_of(kept.begin(), kept.end(), [&](const KeptEntry& e) { return e.phase == phase; });
}

const std::string& TraceJsonWriter::quoted(StringId id)
{
    if (id >= m_quoted.size())
        m_quoted.resize(std::size_t(id) + 1);
    if (!m_quoted[id])
        m_quoted[id] = dumpJson(str(id));
    return *m_quoted[id];
}

const TraceJsonWriter::TrackIds& TraceJsonWriter::trackIds(std::uint32_t track)
{
    if (track >= m_trackIds.size())
        m_trackIds.resize(std::size_t(track) + 1);
    if (!m_trackIds[track]) {
        const auto& tr = trace().tracks()[track];
        m_trackIds[track] = TrackIds{dumpJson(pidOf(trace().processes()[tr.process].pid)), dumpJson(jsonId(tr.tid))};
    }
    return *m_trackIds[track];
}

void TraceJsonWriter::writeInput()
{
    const Trace& t = trace();
    m_quoted.clear();
    m_trackIds.clear();
    assignFlowIds();
    // Traces loaded from JSON keep their metadata events verbatim; built ones get the model's.
    if (!hasKept('M'))
        writeMetadataEvents();
    writeEventsWithText();
    for (SliceId s = 0; s < t.slices().size(); ++s) {
        if (t.slices().rawLength[s] == 0)
            writeSlice(s, {});
    }
    for (std::uint32_t i = 0; i < t.instants().size(); ++i) {
        if (t.instants().rawLength[i] == 0)
            writeInstant(i, {});
    }
    if (!hasKept('C')) // else every counter event was kept verbatim
        writeCounters();
    nameRenamedPids();
}

// Slices, instants and kept entries with source text, in file order, read in one pass.
void TraceJsonWriter::writeEventsWithText()
{
    const Trace& t = trace();
    enum class Kind : std::uint8_t { Slice, Instant, Kept, Flow };
    struct Item {
        Kind kind;
        std::uint32_t index;
    };
    std::vector<TextSpan> spans;
    std::vector<Item> items;
    const auto& slices = t.slices();
    const auto& instants = t.instants();
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (slices.rawLength[s] && !t.isKeptOffset(slices.rawOffset[s])) {
            spans.push_back({slices.rawOffset[s], slices.rawLength[s]});
            items.push_back({Kind::Slice, s});
        }
    }
    for (std::uint32_t i = 0; i < instants.size(); ++i) {
        if (instants.rawLength[i] && !t.isKeptOffset(instants.rawOffset[i])) {
            spans.push_back({instants.rawOffset[i], instants.rawLength[i]});
            items.push_back({Kind::Instant, i});
        }
    }
    const auto& kept = t.keptEntries();
    for (std::uint32_t i = 0; i < kept.size(); ++i) {
        spans.push_back({kept[i].offset, kept[i].length});
        items.push_back({Kind::Kept, i});
    }
    const auto& flowTexts = t.flowTexts();
    for (std::uint32_t i = 0; i < flowTexts.size(); ++i) {
        spans.push_back(flowTexts[i]);
        items.push_back({Kind::Flow, i});
    }
    t.forEachText(spans, [&](std::uint32_t n, std::string_view text) {
        const Item item = items[n];
        switch (item.kind) {
        case Kind::Slice: writeSlice(item.index, text); break;
        case Kind::Instant: writeInstant(item.index, text); break;
        case Kind::Kept: writeKept(text); break;
        case Kind::Flow: writeFlowText(item.index, text); break;
        }
    });
}

void TraceJsonWriter::writeKept(std::string_view text)
{
    if (text.empty()) {
        lose("entries whose text could not be read again from the source file");
        return;
    }
    if (!m_plan.normalizing() && isStrictJson(text)) {
        event(text);
        return;
    }
    Json parsed = parseSource(text);
    if (parsed.is_discarded()) {
        lose("entries that are not valid JSON");
        return;
    }
    if (parsed.is_object() && parsed.contains("pid")) {
        parsed["pid"] = m_plan.pid(m_k, parsed["pid"]);
        const auto isText = [&](const char* key, const char* text) { // value() throws on other types
            const auto it = parsed.find(key);
            return it != parsed.end() && it->is_string() && it->get_ref<const std::string&>() == text;
        };
        if (isText("ph", "M") && isText("name", "process_name"))
            m_namedPids.insert(parsed["pid"]);
    }
    event(dumpJson(parsed));
}

// A source s/t/f event as written (ts, bp, string ids, any other keys): only an id that the
// plan moves and, when normalizing, its pid change.
void TraceJsonWriter::writeFlowText(std::uint32_t i, std::string_view text)
{
    if (text.empty()) {
        lose("entries whose text could not be read again from the source file");
        return;
    }
    const FlowTextId id = m_flowTextId[i];
    if (!m_plan.normalizing() && id.written == id.source && isStrictJson(text)) {
        event(text);
        return;
    }
    Json parsed = parseSource(text);
    if (!parsed.is_object()) {
        lose("entries that are not valid JSON");
        return;
    }
    if (id.written != id.source)
        parsed["id"] = id.written;
    if (parsed.contains("pid"))
        parsed["pid"] = m_plan.pid(m_k, parsed["pid"]);
    event(dumpJson(parsed));
}

void TraceJsonWriter::writeMetadataEvents()
{
    const Trace& t = trace();
    const auto meta = [&](const char* name, const Json& pid, const Json& tid, const Json& args) {
        event(EventText()
                  .field("name", name)
                  .field("ph", "M")
                  .time("ts", 0)
                  .field("pid", pid)
                  .field("tid", tid)
                  .field("args", args)
                  .finish());
    };
    // A host and a device process can share a pid (§2.1 of trace-format.md): name it once.
    std::set<Json> named;
    for (const auto& p : t.processes()) {
        const Json pid = pidOf(p.pid);
        if (!named.insert(pid).second)
            continue;
        if (!p.name.empty()) {
            meta("process_name", pid, 0, Json{{"name", p.name}});
            m_namedPids.insert(pid);
        }
        if (!p.labels.empty())
            meta("process_labels", pid, 0, Json{{"labels", p.labels}});
        if (p.hasSortIndex)
            meta("process_sort_index", pid, 0, Json{{"sort_index", p.sortIndex}});
    }
    for (const auto& tr : t.tracks()) {
        const Json pid = pidOf(t.processes()[tr.process].pid);
        if (!tr.name.empty())
            meta("thread_name", pid, jsonId(tr.tid), Json{{"name", tr.name}});
        if (tr.hasSortIndex)
            meta("thread_sort_index", pid, jsonId(tr.tid), Json{{"sort_index", tr.sortIndex}});
    }
}

// A text pid that became an integer keeps its text as the process name.
void TraceJsonWriter::nameRenamedPids()
{
    for (const auto& [pid, text] : m_plan.renamedTextPids(m_k)) {
        if (!m_namedPids.insert(Json(pid)).second)
            continue;
        event(EventText()
                  .field("name", "process_name")
                  .field("ph", "M")
                  .time("ts", 0)
                  .field("pid", pid)
                  .field("tid", 0)
                  .field("args", Json{{"name", text}})
                  .finish());
    }
}

// Arrows of one source flow (category, name, id; a 1→N graph launch, an s/t/f chain) share
// one written id: ac2g flows the correlation id of their launch, as kineto writes them, others
// their own id (both moved with their process when ids are normalized). An id that another
// flow already took gets a fresh one.
void TraceJsonWriter::assignFlowIds()
{
    const Trace& t = trace();
    const auto& flows = t.flows();
    m_flowId.assign(flows.size(), 0);
    using Group = std::tuple<StringId, StringId, std::uint64_t, std::uint32_t>; // cat, name, id, domain
    std::map<Group, std::uint64_t> idOfGroup;
    std::map<std::pair<StringId, StringId>, std::map<std::uint64_t, Group>> used;
    const StringId ac2g = t.strings().find("ac2g");
    m_chainDomain.clear();
    for (const auto& f : flows)
        if (f.category != ac2g)
            m_chainDomain.try_emplace({f.category, f.name, f.id},
                                      f.from == kNoSlice ? 0 : m_plan.domainOf(m_k, f.from));
    for (const auto& half : t.unpairedFlowHalves()) { // they keep their ids
        const auto domain = chainDomain(half.category, half.name, half.id, half.slice);
        used[{half.category, half.name}].emplace(m_plan.flowId(m_k, domain, half.category, half.id),
                                                 Group{half.category, half.name, half.id, domain});
    }
    std::vector<std::uint32_t> collided;
    for (std::uint32_t i = 0; i < flows.size(); ++i) {
        const auto& f = flows[i];
        const auto domain = chainDomain(f.category, f.name, f.id, f.from);
        const Group group{f.category, f.name, f.id, domain};
        if (auto it = idOfGroup.find(group); it != idOfGroup.end()) {
            m_flowId[i] = it->second;
            continue;
        }
        const std::int64_t corr = f.from == kNoSlice ? kNoId : m_plan.correlation(m_k, f.from);
        const std::uint64_t candidate = f.category == ac2g && corr != kNoId && corr >= 0
            ? std::uint64_t(corr)
            : m_plan.flowId(m_k, domain, f.category, f.id);
        // Taken by this flow's own group (a dangling t or f of its chain) is no collision.
        const auto [taken, inserted] = used[{f.category, f.name}].emplace(candidate, group);
        if (inserted || taken->second == group)
            m_flowId[i] = idOfGroup[group] = candidate;
        else
            collided.push_back(i);
    }
    std::map<std::pair<StringId, StringId>, std::uint64_t> next;
    for (const auto i : collided) {
        const auto& f = flows[i];
        const Group group{f.category, f.name, f.id, chainDomain(f.category, f.name, f.id, f.from)};
        if (auto it = idOfGroup.find(group); it != idOfGroup.end()) {
            m_flowId[i] = it->second;
            continue;
        }
        auto& usedIds = used[{f.category, f.name}];
        auto& candidate = next[{f.category, f.name}];
        do {
            ++candidate;
        } while (usedIds.count(candidate));
        usedIds.emplace(candidate, group);
        m_flowId[i] = idOfGroup[group] = candidate;
    }
    m_flowTextId.assign(t.flowTexts().size(), {});
    for (std::uint32_t i = 0; i < flows.size(); ++i) {
        for (const auto text : {flows[i].toText, flows[i].fromText}) // a t's outgoing arrow last
            if (text != kNoIndex)
                m_flowTextId[text] = {flows[i].id, m_flowId[i]};
    }
    for (const auto& half : t.unpairedFlowHalves()) {
        if (half.text != kNoIndex)
            m_flowTextId[half.text] = {half.id, halfId(half)};
    }
}

// An unpaired half keeps its id: an ac2g half the correlation of its slice, as kineto writes it.
std::uint64_t TraceJsonWriter::halfId(const FlowHalf& half) const
{
    const Trace& t = trace();
    const bool isCorrelation = half.category == t.strings().find("ac2g") && half.slice != kNoSlice
        && std::int64_t(half.id) == t.slices().correlation[half.slice];
    if (isCorrelation)
        return std::uint64_t(m_plan.correlation(m_k, half.slice));
    return m_plan.flowId(m_k, chainDomain(half.category, half.name, half.id, half.slice), half.category, half.id);
}

std::uint32_t TraceJsonWriter::chainDomain(StringId category, StringId name, std::uint64_t id, SliceId slice) const
{
    if (const auto it = m_chainDomain.find({category, name, id}); it != m_chainDomain.end())
        return it->second;
    return slice == kNoSlice ? 0 : m_plan.domainOf(m_k, slice);
}

void TraceJsonWriter::writeSlice(SliceId s, std::string_view rawText)
{
    const Trace& t = trace();
    const auto& slices = t.slices();
    const TrackIds& ids = trackIds(t.trackOf(s));
    const auto overflowTid = m_plan.overflowTid(m_k, s);
    const std::string movedTid = overflowTid ? dumpJson(*overflowTid) : std::string();
    const std::string_view tid = overflowTid ? std::string_view(movedTid) : std::string_view(ids.tid);
    EventText text;
    text.field("ph", "X");
    text.validated("cat", quoted(slices.category[s])).validated("name", quoted(slices.name[s]));
    text.validated("pid", ids.pid).validated("tid", tid);
    text.time("ts", slices.start[s]).time("dur", slices.duration[s]);
    const std::string args = argsText(s, rawText);
    if (!args.empty())
        text.validated("args", args);
    const auto v2Id = writeV2Flow(s, rawText, text);
    event(text.finish());
    writeFlowHalves(s, ids.pid, tid, v2Id);
}

// A v2 flow (bind_id with flow_in / flow_out on the slice) stays on its slice as written; its
// id changes only where the plan moves it. Returns the source id of the flows it wrote.
std::optional<std::uint64_t> TraceJsonWriter::writeV2Flow(SliceId s, std::string_view rawText, EventText& text)
{
    if (rawText.find("\"bind_id\"") == std::string_view::npos)
        return std::nullopt;
    const Json parsed = parseSource(rawText);
    if (!parsed.is_object() || !parsed.contains("bind_id"))
        return std::nullopt;
    const Trace& t = trace();
    const StringId flowCategory = t.strings().find("flow");
    const auto isV2 = [&](StringId category, StringId name, std::uint32_t textIndex) {
        return category == flowCategory && name == kEmptyString && textIndex == kNoIndex;
    };
    std::optional<std::uint64_t> source, written;
    for (const auto i : t.incomingFlows(s)) {
        if (isV2(t.flows()[i].category, t.flows()[i].name, t.flows()[i].toText))
            source = t.flows()[i].id, written = m_flowId[i];
    }
    for (const auto i : t.outgoingFlows(s)) {
        if (isV2(t.flows()[i].category, t.flows()[i].name, t.flows()[i].fromText))
            source = t.flows()[i].id, written = m_flowId[i];
    }
    for (const auto& half : t.unpairedFlowHalves(s)) {
        if (isV2(half.category, half.name, half.text))
            source = half.id, written = halfId(half);
    }
    if (!source)
        return std::nullopt;
    text.field("bind_id", *written == *source ? parsed["bind_id"] : Json(*written));
    for (const char* key : {"flow_in", "flow_out"}) {
        if (parsed.contains(key))
            text.field(key, parsed[key]);
    }
    return source;
}

// Args are copied as written, once nlohmann has validated them: exact numbers and key order,
// and no DOM per event. Text it rejects (NaN, broken escapes, invalid UTF-8) is rebuilt, and
// so are args whose ids move in a merged file.
std::string TraceJsonWriter::argsText(SliceId s, std::string_view rawText)
{
    const auto& slices = trace().slices();
    const bool idsMove =
        m_plan.correlation(m_k, s) != slices.correlation[s] || m_plan.externalId(m_k, s) != slices.externalId[s];
    std::string_view args = rawArgs(rawText);
    // The collector links ops to their calls and kernels after their text was written: the
    // model's External id joins the args kineto would have given them.
    std::string linked;
    if (!rawText.empty() && slices.externalId[s] != kNoId && args.find("\"External id\"") == std::string_view::npos) {
        linked = "{\"External id\":" + std::to_string(slices.externalId[s]);
        if (args.size() > 2)
            linked.append(",").append(args.substr(1));
        else
            linked += '}';
        args = linked;
    }
    if (!idsMove && !args.empty() && (m_strictText || isStrictJson(args)))
        return std::string(args);
    Json rebuilt = linked.empty() ? sliceArgs(s, rawText) : parseSource(linked);
    if (rebuilt.is_discarded())
        rebuilt = sliceArgs(s, rawText);
    if (idsMove && rebuilt.is_object()) {
        if (rebuilt.contains("correlation"))
            rebuilt["correlation"] = m_plan.correlation(m_k, s);
        if (rebuilt.contains("External id"))
            rebuilt["External id"] = m_plan.externalId(m_k, s);
    }
    return rebuilt.is_null() ? std::string() : dumpJson(rebuilt);
}

// Flows the source wrote no s/t/f event for (v2 flows whose slice has no bind_id left, the
// collector's) get halves directly after their slice, with its pid, tid and ts, so that a
// reader binds them to this slice even when a parent starts at the same time. A slice that
// ends one arrow of a flow and starts the next (same written id) gets one t.
void TraceJsonWriter::writeFlowHalves(SliceId s, std::string_view pid, std::string_view tid,
                                      std::optional<std::uint64_t> v2Id)
{
    const Trace& t = trace();
    if (t.incomingFlows(s).empty() && t.outgoingFlows(s).empty() && t.unpairedFlowHalves(s).empty())
        return;
    const StringId flowCategory = t.strings().find("flow");
    const auto synthesized = [&](StringId category, StringId name, std::uint64_t id, std::uint32_t text) {
        const bool writtenAsBindId = v2Id && *v2Id == id && category == flowCategory && name == kEmptyString;
        return text == kNoIndex && !writtenAsBindId;
    };
    const auto flowEvent = [&](const char* ph, std::uint64_t id, StringId category, StringId name) {
        EventText f;
        f.field("ph", ph).add("id", id).validated("pid", pid).validated("tid", tid);
        f.time("ts", t.slices().start[s]).validated("cat", quoted(category)).validated("name", quoted(name));
        if (*ph == 'f')
            f.field("bp", "e");
        event(f.finish());
    };
    using Key = std::tuple<StringId, StringId, std::uint64_t>;
    std::set<Key> incoming, started;
    for (const auto i : t.incomingFlows(s)) {
        const auto& flow = t.flows()[i];
        if (flow.from != kNoSlice && synthesized(flow.category, flow.name, flow.id, flow.toText))
            incoming.emplace(flow.category, flow.name, m_flowId[i]);
    }
    for (const auto i : t.outgoingFlows(s)) {
        const auto& flow = t.flows()[i];
        const Key key{flow.category, flow.name, m_flowId[i]};
        if (flow.to != kNoSlice && synthesized(flow.category, flow.name, flow.id, flow.fromText)
            && started.insert(key).second)
            flowEvent(incoming.count(key) ? "t" : "s", m_flowId[i], flow.category, flow.name);
    }
    for (const auto i : t.incomingFlows(s)) {
        const auto& flow = t.flows()[i];
        if (flow.from != kNoSlice && synthesized(flow.category, flow.name, flow.id, flow.toText)
            && !started.count({flow.category, flow.name, m_flowId[i]}))
            flowEvent("f", m_flowId[i], flow.category, flow.name);
    }
    for (const auto& half : t.unpairedFlowHalves(s)) {
        if (synthesized(half.category, half.name, half.id, half.text))
            flowEvent(half.isStart ? "s" : "f", halfId(half), half.category, half.name);
    }
}

Json TraceJsonWriter::sliceArgs(SliceId s, std::string_view rawText)
{
    if (trace().slices().rawLength[s] == 0)
        return synthesizedArgs(s);
    Json parsed = parseSource(rawText);
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
    const Trace& t = trace();
    const auto& slices = t.slices();
    Json args = Json::object();
    if (slices.externalId[s] != kNoId)
        args["External id"] = slices.externalId[s];
    if (const GpuOpInfo* g = t.gpuOpInfo(s)) {
        if (g->device >= 0)
            args["device"] = g->device;
        if (g->stream >= 0)
            args["stream"] = g->stream;
    }
    if (slices.correlation[s] != kNoId)
        args["correlation"] = slices.correlation[s];
    if (const GpuOpInfo* g = t.gpuOpInfo(s)) {
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

void TraceJsonWriter::writeInstant(std::uint32_t i, std::string_view raw)
{
    const Trace& t = trace();
    const auto& instants = t.instants();
    Json pid = 0, tid = 0, args;
    if (!raw.empty()) {
        Json parsed = parseSource(raw);
        if (parsed.is_object()) {
            pid = m_plan.pid(m_k, parsed.value("pid", Json(0)));
            tid = parsed.value("tid", Json(0));
            args = parsed.value("args", Json());
        } else {
            ++m_result.unreadableArgs;
        }
    }
    const char* scope = "g";
    if (instants.scope[i] == InstantScope::Thread && instants.track[i] != kNoIndex) {
        const auto& track = t.tracks()[instants.track[i]];
        pid = pidOf(t.processes()[track.process].pid);
        tid = jsonId(track.tid);
        scope = "t";
    } else if (instants.scope[i] == InstantScope::Process && instants.process[i] != kNoIndex) {
        pid = pidOf(t.processes()[instants.process[i]].pid);
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
}

void TraceJsonWriter::writeCounters()
{
    for (const auto& series : trace().counters()) {
        if (series.derived)
            continue; // a reader makes it again from the [memory] instants written above
        // The series is named "<event name> <arg key>"; splitting at the last space gives a
        // name and key that read back as the same series name.
        const auto space = series.name.rfind(' ');
        const std::string name = space == std::string::npos ? series.name : series.name.substr(0, space);
        const std::string key = space == std::string::npos ? std::string() : series.name.substr(space + 1);
        const Json pid = pidOf(series.pid);
        for (std::size_t i = 0; i < series.time.size(); ++i) {
            event(EventText()
                      .field("ph", "C")
                      .field("name", name)
                      .field("pid", pid)
                      .time("ts", series.time[i])
                      .field("args", Json{{key, series.value[i]}})
                      .finish());
        }
    }
}

} // namespace ks
