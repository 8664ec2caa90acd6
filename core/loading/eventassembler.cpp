#include "core/loading/eventassembler.h"

#include <algorithm>

namespace ks {

void ParsedBatch::clear()
{
    base = 0;
    rawBegin = rawEnd = 0;
    rawPlainAscii = false;
    texts.clear();
    idTexts = StringPool();
    events.clear();
    entries = 0;
    stopsLoad = false;
    steps.clear();
}

JsonId EventAssembler::globalId(JsonId readerId)
{
    if (!readerId.isText)
        return readerId;
    auto& id = m_idOfReaderId[readerId.text];
    if (id == kNoIndex)
        id = m_builder.strings().intern(m_batchIds->view(readerId.text));
    return JsonId::fromText(id);
}

void EventAssembler::apply(ParsedBatch& batch)
{
    m_batchIds = &batch.idTexts;
    m_idOfReaderId.assign(batch.idTexts.size(), kNoIndex);
    auto step = batch.steps.begin();
    for (std::size_t i = 0; i < batch.events.size(); ++i) {
        for (; step != batch.steps.end() && step->first == i; ++step)
            step->second(*this);
        auto& parsed = batch.events[i];
        m_eventIndex = m_batchBase + parsed.index;
        RawEvent& ev = parsed.event;
        if (ev.hasPid)
            ev.pid = globalId(ev.pid);
        if (ev.hasTid)
            ev.tid = globalId(ev.tid);
        handleEvent(ev, parsed.offset, parsed.length);
    }
    for (; step != batch.steps.end(); ++step)
        step->second(*this);
    m_batchBase += batch.entries;
    m_batchIds = nullptr;
}

std::int8_t EventAssembler::categoryKind(StringId category)
{
    if (category >= m_categoryKind.size())
        m_categoryKind.resize(category + 1, -1);
    auto& v = m_categoryKind[category];
    if (v < 0) {
        v = isDeviceCategory(m_builder.strings().view(category)) ? kDeviceCategory : 0;
        if (m_builder.categoryClass(category) == SliceClass::CpuOp)
            v |= kCpuOpCategory;
    }
    return v;
}

void EventAssembler::handleEvent(RawEvent& ev, std::uint64_t offset, std::uint32_t length)
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
    const std::int8_t kind = categoryKind(category);
    const bool device = kind & kDeviceCategory;
    // The ops' shape args, interned while the window holds them (B and b spans keep the id).
    if ((kind & kCpuOpCategory) && ev.hasShapeArgs && (ev.ph == 'X' || ev.ph == 'B' || ev.ph == 'b'))
        ev.shapeArgsId = m_builder.shapeArgs().intern(ev.shapeArgs, ev.shapeArgsHash);
    switch (ev.ph) {
    case 'X': handleSlice(ev, pid, tid, name, category, device, offset, length); return;
    case 'B':
    case 'E': handleBeginEnd(ev, pid, tid, name, category, device, offset, length); return;
    case 'i':
    case 'I':
    case 'R': {
        InstantEvent e;
        e.pid = pid;
        e.tid = tid;
        e.device = device;
        e.scope = ev.scope == "g" ? InstantScope::Global
            : ev.scope == "p"     ? InstantScope::Process
                                  : InstantScope::Thread;
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
        if (m_lastSlice.index != kNoIndex && m_lastSlice.start == ev.ts && m_lastSlice.pid == pid
            && m_lastSlice.tid == tid)
            f.pendingSlice = m_lastSlice.index;
        m_builder.addFlowEvent(f);
        return;
    }
    case 'b':
    case 'n':
    case 'e': handleAsync(ev, pid, name, category, offset, length); return;
    default: return; // kept verbatim by handleKeptEvent
    }
}

// Entries the model does not represent faithfully are kept verbatim for the writer (offset
// and length only); some of them still feed the model (marks, counters, nestable async).
// Returns true when the entry needs nothing more (skipped, or kept only).
bool EventAssembler::handleKeptEvent(const RawEvent& ev, std::uint64_t offset, std::uint32_t length)
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
    case 'B':
    case 'E':
    case 'i':
    case 'I': return false;
    case 's':
    case 't':
    case 'f':
        if (ev.hasId)
            return false;
        diag.warn("flow-without-id", "a flow event without \"id\" was not shown", offset, m_eventIndex);
        keep();
        return true;
    case 'R':
    case 'C':
    case 'b':
    case 'n':
    case 'e': keep(); return false;
    default:
        diag.warn("ignored-phase", std::string("events of phase '") + ev.ph + "' are not shown (kept for Save As)",
                  offset, m_eventIndex);
        keep();
        return true;
    }
}

void EventAssembler::handleSlice(const RawEvent& ev, JsonId pid, JsonId tid, StringId name, StringId category,
                                 bool device, std::uint64_t offset, std::uint32_t length)
{
    if (ev.dur < 0) {
        m_builder.diagnostics().warn("negative-dur", "a slice with a negative duration was not shown", offset,
                                     m_eventIndex);
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
    s.shapeArgs = ev.shapeArgsId;
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

void EventAssembler::addMemorySamples(const RawEvent& ev, JsonId pid)
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

void EventAssembler::handleMetadataEvent(const RawEvent& ev, JsonId pid, JsonId tid)
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

void EventAssembler::handleBeginEnd(const RawEvent& ev, JsonId pid, JsonId tid, StringId name, StringId category,
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
        m_builder.diagnostics().warn("unmatched-end", "an E event without a matching B was not shown", offset,
                                     m_eventIndex);
        m_builder.keepEntry(offset, length, 'E');
        return;
    }
    OpenSlice open = *it;
    stack.erase(std::next(it).base());
    RawEvent b = open.event;
    b.dur = std::max<TimeNs>(0, ev.ts - b.ts);
    handleSlice(b, open.pid, open.tid, open.name, open.category, open.device, open.offset, open.length);
}

void EventAssembler::handleAsync(const RawEvent& ev, JsonId pid, StringId name, StringId category, std::uint64_t offset,
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
    OpenSlice open = stack.back();
    stack.pop_back();
    RawEvent b = open.event;
    b.dur = std::max<TimeNs>(0, ev.ts - b.ts);
    handleSlice(b, pid, track, open.name, category, false, open.offset, open.length);
}

void EventAssembler::closeOpenSlices()
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

} // namespace ks
