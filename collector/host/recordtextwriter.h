#pragma once
// The kineto JSON text of each recorded event, as torch.profiler writes it (category, name,
// pid/tid, times and kineto's args per kind of record), appended to the session's TextArena;
// the trace builders hand it out by offset (Save As, `collect`). ProcessRecorder decides what
// the events are and keeps them; this only writes their text.
#include "collector/host/recordedprocess.h"
#include "collector/host/textarena.h"
#include "collector/host/torchops.h"
#include "core/writing/eventtext.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks::collector {

// What a kernel's launch gives on its device (kineto's "blocks per SM", ...).
struct KernelOccupancy {
    double blocksPerSm = 0.0;
    double warpsPerSm = 0.0;
    std::optional<int> estAchievedPct;
};

class RecordTextWriter {
public:
    using Span = TextArena::Span;

    explicit RecordTextWriter(std::shared_ptr<TextArena> arena);

    // Names are written as JSON literals escaped once: addName() is called for each new
    // name index, in order (RecordedProcess::names).
    void addName(std::string_view name) { m_quotedNames.push_back(jsonQuoted(name)); }

    Span kernel(const RecordedSlice& slice, const wire::Kernel& k, TimeNs queued, std::int64_t sharedMemory,
                const std::optional<KernelOccupancy>& occupancy);
    Span memcpy(const RecordedSlice& slice, const wire::Memcpy& m);
    Span memset(const RecordedSlice& slice, const wire::Memset& m);
    Span api(const RecordedSlice& slice, const wire::Api& a);
    Span sync(const RecordedSlice& slice, const wire::Sync& s, bool hasStream, bool hasEvent);
    // An NVTX range; no `domain` for the default domain.
    Span range(const RecordedSlice& slice, std::optional<std::string_view> domain);
    // An emit_nvtx op range with kineto's args.
    Span opRange(const RecordedSlice& slice, const TorchOp& op, std::string_view inputDims);
    Span overhead(const RecordedSlice& slice);
    // An NVTX mark (kineto's user_annotation instant).
    Span mark(std::int64_t pid, const RecordedInstant& instant, std::optional<std::string_view> domain);
    // The collector's own marks on the process: an error with its code, or why recording ended.
    Span error(std::int64_t pid, const RecordedInstant& instant, std::int32_t code);
    Span ending(std::int64_t pid, const RecordedInstant& instant, std::string_view reason);

private:
    Span slice(const RecordedSlice& slice, const EventText& args);
    Span instant(std::string_view quotedCategory, std::int64_t pid, const RecordedInstant& instant,
                 const EventText& args);

    std::shared_ptr<TextArena> m_arena;
    std::vector<std::string> m_quotedNames; // by name index
};

} // namespace ks::collector
