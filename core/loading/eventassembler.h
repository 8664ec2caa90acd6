#pragma once
// The second half of loading: turns parsed traceEvents entries, in file order, into
// TraceBuilder calls (slices, B/E and async pairing, flows, instants, counters, metadata).
// It runs on a thread of its own while the reader parses the next window (see loader.cpp),
// so it only sees events through ParsedBatch: text that outlives the reader's window.
#include "core/loading/eventparser.h"
#include "core/model/tracebuilder.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ks {

struct ParsedEvent {
    RawEvent event; // views point into ParsedBatch::window or ParsedBatch::texts
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
    std::int64_t index = 0; // position in traceEvents
};

class EventAssembler;

// The events parsed from one window of the stream, with what their views point at.
struct ParsedBatch {
    std::vector<char> window;
    std::deque<std::string> texts; // decoded escapes and UTF-8 repairs
    std::vector<std::string> newIdTexts; // text pids/tids first seen here, by reader-side id
    std::vector<ParsedEvent> events;
    // Rare steps (top-level keys, warnings) run in order: before events[first].
    std::vector<std::pair<std::size_t, std::function<void(EventAssembler&)>>> steps;

    bool empty() const { return events.empty() && steps.empty() && newIdTexts.empty(); }
    void clear();
};

class EventAssembler {
public:
    TraceBuilder& builder() { return m_builder; }
    // Consumes the batch (its text ids are replaced by the model's).
    void apply(ParsedBatch& batch);
    // Unclosed B and async spans run to the end of the trace.
    void closeOpenSlices();

private:
    JsonId globalId(JsonId readerId);
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
    bool deviceCategory(StringId category);

    TraceBuilder m_builder;
    std::int64_t m_eventIndex = 0;
    TimeNs m_maxTime = 0;
    std::vector<std::string> m_idTexts{""}; // by reader-side id (0 is the empty string)
    std::vector<StringId> m_idOfReaderId; // interned on first use, in event order
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

} // namespace ks
