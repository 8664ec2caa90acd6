#pragma once
// Builds the immutable trace model from what the collector has recorded so far. Called
// for every live snapshot and once at the end; the inputs are copies, so the receiving
// thread keeps running while a snapshot is built.
#include "collector/host/gpuannotations.h"
#include "collector/host/recordedprocess.h"
#include "collector/host/textarena.h"
#include "collector/host/torchoplinker.h"
#include "core/model/tracebuilder.h"

#include <limits>
#include <memory>
#include <optional>
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

// What is derived from one recorded process as its records arrive: from the whole recording,
// whatever part of it a builder holds.
struct ProcessDerivations {
    RecordIndex index; // of the process's slices, for the two derivations below
    TorchOpLinker ops; // its operators linked to its slices
    GpuAnnotations annotations;
    TimeNs earliestStart = std::numeric_limits<TimeNs>::max(); // of its slices
    std::size_t scanned = 0; // slices read for earliestStart
    // Brings them up to `process`, grown at its tail since the last update.
    void update(const RecordedProcess& process);
};

// What of one recorded process a TraceBuilder holds: its slices from firstSlice on (all of them
// but in a live view's window), up to the counts added so far; a window's flows and instants are
// those recorded since it started.
struct AddedProcess {
    std::int64_t pid = 0;
    std::size_t firstSlice = 0;
    std::size_t slices = 0, flows = 0, instants = 0; // records added so far (the end of those held)
    std::vector<StringId> names; // the process's name table, interned
    std::vector<std::uint32_t> builderIndex; // of each added slice, from firstSlice on
    std::set<std::pair<std::int64_t, std::int64_t>> gpuRows; // (device, stream) of the added slices
    TimeNs earliestStart = std::numeric_limits<TimeNs>::max(); // of the added slices

    // A builder that holds the records that arrive from now on.
    static AddedProcess from(const RecordedProcess& process);
    // The builder's index of a slice of the process, or kNoIndex when the builder does not hold it.
    std::uint32_t builderSlice(std::size_t slice) const
    {
        return slice >= firstSlice && slice < slices ? builderIndex[slice - firstSlice] : kNoIndex;
    }
};

// What a live snapshot holds of the recording, when it holds the most recent slices only (its
// "liveWindow" metadata); nullopt for any other trace.
struct LiveWindowExtent {
    std::size_t slicesShown = 0, slicesRecorded = 0;
    TimeNs shownFrom = 0; // the earliest start of the slices shown: what started before is left out
};
std::optional<LiveWindowExtent> liveWindowOf(const Trace& trace);

// A live view's trace builds: each adds to one TraceBuilder only what was recorded since the
// last, adds what is derived from everything (GPU annotations, forward-backward arrows,
// warnings) for that snapshot only, and takes a snapshot of the builder. The result is the
// trace buildCollectedTrace makes of the same records, at a cost that grows with the new
// records and one linear pass over the model, not a build from scratch.
//
// With a window (setWindow), a snapshot holds only the most recent records, so that its cost
// stops growing with the recording: a second builder starts taking the records that arrive once
// the shown one holds half the window's slices, and replaces it when it holds half the window
// itself. A snapshot then holds between half the window and all of it (more only when one
// update brings more than half); links and arrows derived from the whole recording are kept
// where both ends are in the window.
class LiveTraceBuilder {
public:
    // What the GUI's live view holds by default: a snapshot of it builds in tens of ms.
    static constexpr std::size_t kDefaultWindowSlices = 400000;
    // Slices a snapshot holds at most (0, the default: every one). A change starts over: the
    // next build holds everything recorded, or the last update's records in a window.
    void setWindow(std::size_t slices);
    // `processes`: those of a LiveCopy, the same ones as at the last call, each grown at its
    // tail. Any other change (a new process, a device now shared) starts over.
    Trace build(const std::vector<RecordedProcess>& processes, const TraceBuildOptions& options);
    // Of the last build: the recorded slices it holds, and all those recorded.
    std::size_t slicesShown() const { return m_shownSlices; }
    std::size_t slicesRecorded() const { return m_recordedSlices; }

private:
    // One builder and what it holds of each process.
    struct Window {
        TraceBuilder builder;
        std::vector<AddedProcess> added; // parallel to the processes
    };

    bool continuesWith(const std::vector<RecordedProcess>& processes,
                       const std::set<std::int64_t>& devicesOfSeveral) const;
    // Starts the next window, or makes it the shown one, as the window's size says.
    void slideWindow(const std::vector<RecordedProcess>& processes);

    std::vector<ProcessDerivations> m_derived; // parallel to the processes
    Window m_shown;
    std::unique_ptr<Window> m_next; // the records since the shown one was half full
    std::set<std::int64_t> m_devicesOfSeveral;
    std::size_t m_window = 0;
    std::size_t m_shownSlices = 0, m_recordedSlices = 0;
};

} // namespace ks::collector
