#pragma once
// What a user keeps with a trace (issue 41): marks (a time or a range, with a note) and
// named views (the visible range, the selection and the track layout). Times are the
// trace's own (ns, as in the model); tracks, processes and counters are the model's indices,
// which a sidecar may use because it belongs to one file (core/notes/sidecar.h checks it).
#include "core/model/trace.h"
#include "core/timeline/contentextent.h"
#include "core/timeline/tracklayout.h"

#include <optional>
#include <string>
#include <vector>

namespace ks::notes {

struct Mark {
    TimeNs start = 0;
    TimeNs end = 0; // == start: a point in time
    std::string note;

    bool isRange() const { return end > start; }
};

struct SavedView {
    std::string name;
    TimeExtent visible;
    std::optional<TimeExtent> selectedRange;
    SliceId selectedSlice = kNoSlice;
    // The track layout as the timeline keeps it (LayoutOptions less metricTracks, which
    // follow the GPU report) plus the collapsed process groups and the vertical scroll.
    LayoutOptions layout;
    std::vector<std::uint32_t> collapsedProcesses;
    int scrollY = 0;
};

struct TraceNotes {
    std::vector<Mark> marks;
    std::vector<SavedView> views;

    bool empty() const { return marks.empty() && views.empty(); }
    // The view of that name, or null.
    const SavedView* view(const std::string& name) const;
    // Replaces the view of the same name, else appends it.
    void putView(SavedView view);
};

// Drops what this trace lacks (indices past its tracks, processes, counters or slices, marks
// or ranges with end < start): a hand-edited sidecar must not index out of the model.
// Returns how many entries were dropped.
std::size_t fitToTrace(TraceNotes& notes, const Trace& trace);

} // namespace ks::notes
