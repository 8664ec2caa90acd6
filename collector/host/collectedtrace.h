#pragma once
// Builds the immutable trace model from what the collector has recorded so far. Called
// for every live snapshot and once at the end; the inputs are copies, so the receiving
// thread keeps running while a snapshot is built.
#include "collector/host/gpuannotations.h"
#include "collector/host/recordedprocess.h"
#include "collector/host/textarena.h"
#include "collector/host/torchoplinker.h"
#include "core/model/tracebuilder.h"

#include <memory>
#include <set>
#include <vector>

namespace ks::collector {

struct TraceBuildOptions {
    std::int64_t baseNs = 0; // Unix-epoch ns of ts 0 (session start floored to 1 s)
    std::shared_ptr<const TextArena> arena;
    // --step-marker: written as the "stepMarker" metadata, so that viewers can say that the
    // ProfilerStep#N ranges are the marker's (facts::StepSource::StepMarker).
    std::string stepMarker;
};

// GPU rows use pid = device index, as kineto writes them; in a file of several processes, the
// rows of a device that several of them used are keyed "GPU <device> · pid <pid>" instead, so
// that each process's rows stay apart (the writer numbers them; their process_labels say
// "GPU <device>").
Trace buildCollectedTrace(const std::vector<RecordedProcess>& processes, const TraceBuildOptions& options);

// What of one recorded process a TraceBuilder holds.
struct AddedProcess {
    std::int64_t pid = 0;
    std::size_t slices = 0, flows = 0, instants = 0; // records added so far
    std::vector<StringId> names; // the process's name table, interned
    std::vector<std::uint32_t> builderIndex; // of each added slice
    RecordIndex index; // of the slices added, for the two derivations below
    TorchOpLinker ops; // its operators linked to the slices added
    std::set<std::pair<std::int64_t, std::int64_t>> gpuRows; // (device, stream) of the added slices
    GpuAnnotations annotations; // derived from the slices added
};

// A live view's trace builds: each adds to one TraceBuilder only what was recorded since the
// last, adds what is derived from everything (GPU annotations, forward-backward arrows,
// warnings) for that snapshot only, and takes a snapshot of the builder. The result is the
// trace buildCollectedTrace makes of the same records, at a cost that grows with the new
// records and one linear pass over the model, not a build from scratch.
class LiveTraceBuilder {
public:
    // `processes`: those of a LiveCopy, the same ones as at the last call, each grown at its
    // tail. Any other change (a new process, a device now shared) starts over.
    Trace build(const std::vector<RecordedProcess>& processes, const TraceBuildOptions& options);

private:
    bool continuesWith(const std::vector<RecordedProcess>& processes,
                       const std::set<std::int64_t>& devicesOfSeveral) const;

    TraceBuilder m_builder;
    std::vector<AddedProcess> m_added; // parallel to the processes
    std::set<std::int64_t> m_devicesOfSeveral;
};

} // namespace ks::collector
