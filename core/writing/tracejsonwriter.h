#pragma once
// Writes one file's worth of traces as kineto-compatible JSON into a Sink: the top-level keys
// in kineto's order, then every input's events in file order (slices with their args, flows,
// instants and kept entries as written; metadata and counters), with the ids that IdPlan
// gives them. writer.h's functions choose the sink (a stream, a file, gzip) and report.
#include "core/writing/eventtext.h"
#include "core/writing/idplan.h"
#include "core/writing/textsink.h"
#include "core/writing/writer.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace ks {

class TraceJsonWriter {
public:
    using Json = nlohmann::ordered_json;

    TraceJsonWriter(const std::vector<const Trace*>& inputs, const TraceWriteOptions& options, Sink& sink)
        : m_inputs(inputs)
        , m_plan(inputs, options.normalizeIds)
        , m_sink(sink)
        , m_strictText(options.strictText)
    {
    }
    TraceWriteResult run();

private:
    const Trace& trace() const { return *m_inputs[m_k]; }
    Json pidOf(const JsonId& pid) { return m_plan.pid(m_k, pid); }
    Json jsonId(const JsonId& id) const
    {
        return id.isText ? Json(std::string(trace().str(id.text))) : Json(id.number);
    }
    Json str(StringId id) const { return std::string(trace().str(id)); }
    // Of the current input, made once: a string's JSON literal (names, categories; as str()
    // dumps it) and a track's pid and tid as written.
    const std::string& quoted(StringId id);
    struct TrackIds {
        std::string pid, tid;
    };
    const TrackIds& trackIds(std::uint32_t track);
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
    void event(std::string_view text)
    {
        put(m_result.eventsWritten++ ? ",\n" : "\n");
        put(text);
    }
    void lose(const std::string& what) { ++m_lost[what]; }
    Json parseSource(std::string_view text);
    void writeTopLevelKeys(bool trailer);
    void writeTopLevel(std::string_view key, const std::string& rawJson);
    void writeInput();
    void writeMetadataEvents();
    void nameRenamedPids();
    void assignFlowIds();
    void writeEventsWithText();
    void writeKept(std::string_view text);
    void writeFlowText(std::uint32_t i, std::string_view text);
    void writeSlice(SliceId s, std::string_view rawText);
    std::optional<std::uint64_t> writeV2Flow(SliceId s, std::string_view rawText, EventText& text);
    void writeFlowHalves(SliceId s, std::string_view pid, std::string_view tid, std::optional<std::uint64_t> v2Id);
    std::uint64_t halfId(const FlowHalf& half) const;
    std::string argsText(SliceId s, std::string_view rawText);
    Json sliceArgs(SliceId s, std::string_view rawText);
    Json synthesizedArgs(SliceId s) const;
    void writeInstant(std::uint32_t i, std::string_view raw);
    void writeCounters();
    bool hasKept(char phase) const;

    static constexpr std::size_t kBufferBytes = 1 << 20;
    const std::vector<const Trace*>& m_inputs;
    IdPlan m_plan;
    Sink& m_sink;
    const bool m_strictText; // TraceWriteOptions::strictText
    std::size_t m_k = 0; // the input being written
    std::string m_buffer;
    bool m_ok = true;
    bool m_firstKey = true;
    TraceWriteResult m_result;
    std::map<std::string, std::uint64_t> m_lost;
    std::uint64_t m_nonFinite = 0; // kept entries whose NaN/Infinity became null
    std::set<std::string> m_keysWritten;
    std::set<Json> m_namedPids; // written pids that have a process_name
    std::vector<std::uint64_t> m_flowId; // per flow of the current input
    // The id domain of each source flow (category, name, id) of the current input: an s/t/f
    // chain is one flow wherever its events are (an IPC chain crosses processes), so all its
    // events take the domain of its first arrow and keep one written id.
    std::map<std::tuple<StringId, StringId, std::uint64_t>, std::uint32_t> m_chainDomain;
    std::uint32_t chainDomain(StringId category, StringId name, std::uint64_t id, SliceId slice) const;
    struct FlowTextId {
        std::uint64_t source = 0, written = 0;
    };
    std::vector<FlowTextId> m_flowTextId; // per flowTexts() entry of the current input
    std::vector<std::optional<std::string>> m_quoted; // by StringId, of the current input
    std::vector<std::optional<TrackIds>> m_trackIds; // by track, of the current input
};

} // namespace ks
