#pragma once
// The second half of loading: turns parsed traceEvents entries, in file order, into
// TraceBuilder calls (slices, B/E and async pairing, flows, instants, counters, metadata).
// It runs on a thread of its own while the reader parses the next window (see loader.cpp),
// so it only sees events through ParsedBatch: text that outlives the reader's window.
#include "core/loading/eventparser.h"
#include "core/model/stringpool.h"
#include "core/model/tracebuilder.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ks {

struct ParsedEvent {
    RawEvent event; // views point into ParsedBatch::window or ParsedBatch::texts
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
    std::int64_t index = 0; // entry number in its batch
};

class EventAssembler;

// Leaves a vector's new elements uninitialized (for bytes always written before they are read):
// zeroing each new 256 kB window was a tenth of a summarizing worker's cache misses (issue 40).
template <class T>
struct UninitializedAllocator : std::allocator<T> {
    UninitializedAllocator() noexcept = default;
    template <class U>
    UninitializedAllocator(const UninitializedAllocator<U>&) noexcept
    {
    }
    template <class U>
    void construct(U* p) noexcept
    {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args)
    {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
using WindowBytes = std::vector<char, UninitializedAllocator<char>>;

// The events parsed from one window of the stream, with what their views point at. A batch
// may end in a raw run of whole traceEvents entries, window[rawBegin, rawEnd), that a parse
// worker turns into more events (see BatchPipe); batches are assembled in stream order.
struct ParsedBatch {
    WindowBytes window;
    std::uint64_t base = 0; // stream offset of window[0]
    std::size_t rawBegin = 0, rawEnd = 0; // not yet parsed; empty when rawBegin == rawEnd
    bool rawPlainAscii = false; // the raw run has no byte >= 0x80 and no escape (see wholeEntriesEnd)
    std::deque<std::string> texts; // decoded escapes and UTF-8 repairs
    StringPool idTexts; // text pids/tids of this batch's events (ids local to the batch)
    std::vector<ParsedEvent> events; // ParsedEvent::index counts from the batch's first entry
    std::int64_t entries = 0; // traceEvents entries in the batch (objects or not)
    bool stopsLoad = false; // ends in a syntax error: later batches are not assembled
    // Rare steps (top-level keys, warnings) run in order: before events[first].
    std::vector<std::pair<std::size_t, std::function<void(EventAssembler&)>>> steps;

    bool hasRawEntries() const { return rawEnd > rawBegin; }
    void clear();
};

class EventAssembler {
public:
    TraceBuilder& builder() { return m_builder; }
    // Consumes the batch (its text ids are replaced by the model's).
    void apply(ParsedBatch& batch);
    // The traceEvents position of the current batch's entry number `local`, for its steps.
    std::int64_t entryIndex(std::int64_t local) const { return m_batchBase + local; }
    std::int64_t entriesAssembled() const { return m_batchBase; }
    // Unclosed B and async spans run to the end of the trace.
    void closeOpenSlices();

private:
    JsonId globalId(JsonId readerId);
    void handleEvent(RawEvent& ev, std::uint64_t offset, std::uint32_t length);
    bool handleKeptEvent(const RawEvent& ev, std::uint64_t offset, std::uint32_t length);
    void handleSlice(const RawEvent& ev, JsonId pid, JsonId tid, StringId name, StringId category, bool device,
                     std::uint64_t offset, std::uint32_t length);
    void handleMetadataEvent(const RawEvent& ev, JsonId pid, JsonId tid);
    void addMemorySamples(const RawEvent& ev, JsonId pid);
    void handleBeginEnd(const RawEvent& ev, JsonId pid, JsonId tid, StringId name, StringId category, bool device,
                        std::uint64_t offset, std::uint32_t length);
    void handleAsync(const RawEvent& ev, JsonId pid, StringId name, StringId category, std::uint64_t offset,
                     std::uint32_t length);
    // kDeviceCategory | kCpuOpCategory bits of a category, worked out once per category.
    static constexpr std::int8_t kDeviceCategory = 1, kCpuOpCategory = 2;
    std::int8_t categoryKind(StringId category);

    TraceBuilder m_builder;
    std::int64_t m_eventIndex = 0;
    std::int64_t m_batchBase = 0; // traceEvents entries in the batches before the current one
    TimeNs m_maxTime = 0;
    const StringPool* m_batchIds = nullptr; // the current batch's text pids/tids
    std::vector<StringId> m_idOfReaderId; // by batch-local id: interned on first use, in event order
    std::vector<std::int8_t> m_categoryKind; // by category id: -1 unknown, else categoryKind's bits

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
