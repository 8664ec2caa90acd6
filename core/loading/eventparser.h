#pragma once
// Parses one traceEvents entry ("{...}") from a window of the stream into flat fields,
// reading only the args kineto's consumers need (correlation, kernel launch config,
// metadata names); everything else stays in the raw text for on-demand decoding.
#include "core/loading/jsonscan.h"
#include "core/model/trace.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ks {

struct KernelArgs {
    std::int64_t correlation = kNoId;
    std::int64_t externalId = kNoId;
    GpuOpInfo gpu;
    bool hasGpuFields = false;
    // [memory] instants (profile_memory): allocator totals after the event.
    std::int64_t totalAllocated = kNoId;
    std::int64_t totalReserved = kNoId;
    std::int64_t deviceType = kNoId; // 0 CPU, 1 CUDA
    std::int64_t deviceId = kNoId;
    // M events
    std::string_view name;
    std::string_view labels;
    std::int64_t sortIndex = 0;
    bool hasSortIndex = false;
};

struct RawEvent {
    char ph = 0; // 0: missing
    std::string_view name, category, bp, scope;
    bool hasName = false, hasCategory = false;
    JsonId pid, tid;
    bool hasPid = false, hasTid = false;
    TimeNs ts = 0, dur = 0;
    bool hasTs = false, hasDur = false;
    bool badTs = false, badDur = false; // present but not a finite, representable number
    std::uint64_t id = 0;
    bool hasId = false;
    std::uint64_t bindId = 0;
    bool hasBindId = false, flowIn = false, flowOut = false;
    const char* argsBegin = nullptr; // raw args object, for C events
    const char* argsEnd = nullptr;
    KernelArgs args;
    // The args' "Input Dims" ("Input dims" of older torch), "Input type" and "Concrete
    // Inputs" arrays as written, the last of each key. EntryParser sets hasShapeArgs when they
    // are exactly what analysis::findShapeArgs finds in the event's text read back (plain
    // ASCII: no escape, no repair, the same walk over the members); the assembler interns them.
    ShapeArgsText shapeArgs;
    bool shapeArgsSeen = false; // one of the keys in args
    bool shapeArgsUsable = true; // false: one of them is not an array
    bool newShapeDims = false; // "Input Dims" seen: it wins over "Input dims"
    bool hasShapeArgs = false;
    std::uint32_t shapeArgsId = kNoIndex; // in the trace's ShapeArgsPool, set by the assembler
    std::uint64_t shapeArgsHash = ShapeArgsPool::kNoArgsHash; // ShapeArgsPool::hashOf, when hasShapeArgs
    std::uint32_t duplicateKeys = 0;
    std::uint32_t droppedFields = 0; // fields of a type we could not coerce
};

class EventParser {
public:
    // `interner` turns text pids/tids into ids. c.p must point at '{'; `ev` is a fresh
    // RawEvent{} (the caller's emplace_back made it: resetting it again cost 1-2 % of a load).
    json::Status parse(json::Cursor& c, RawEvent& ev, StringPool& interner);

private:
    json::Status parseArgs(json::Cursor& c, RawEvent& ev);
    json::Status parseStringField(json::Cursor& c, std::string_view& out, std::string& scratch, RawEvent& ev);
    json::Status parseIdField(json::Cursor& c, JsonId& out, bool& has, RawEvent& ev, StringPool& interner);
    json::Status parseTimeField(json::Cursor& c, TimeNs& out, bool& has, bool& bad);
    json::Status parseFlowId(json::Cursor& c, std::uint64_t& out, bool& has);
    json::Status parseFlag(json::Cursor& c, bool& out, RawEvent& ev);
    json::Status parseNumber(json::Cursor& c, double& out, bool& ok);
    json::Status parseInteger(json::Cursor& c, std::int64_t& out, bool& ok);
    json::Status parseTriple(json::Cursor& c, std::int32_t (&out)[3]);
    json::Status parseShapeArray(json::Cursor& c, std::string_view* out, RawEvent& ev);

    // One scratch buffer per string field, so views from two escaped fields coexist.
    std::string m_key, m_name, m_category, m_bp, m_scope, m_ph, m_argName, m_argLabels, m_text;
};

// For C events: each numeric (or numeric-string) arg of the raw args object.
std::vector<std::pair<std::string, double>> numericArgs(const char* begin, const char* end);

} // namespace ks
