#pragma once
// A live recording shows a newer snapshot of its trace every 100 ms: the user's view of the
// previous one carries over, so a user can scroll down to a GPU stream, fold groups, select
// a range or a kernel and keep them while the recording goes on. The snapshots are separate
// traces: their processes, tracks and counters are matched by pid, tid and name, and a
// selected slice (whose id may differ) by its track, start and name.
#include "core/timeline/contentextent.h"
#include "core/timeline/navigationhistory.h"
#include "core/timeline/tracklayout.h"

#include <memory>
#include <vector>

namespace ks {

class TimelineSnapshotCarryOver {
public:
    // What a newer snapshot keeps of the view of the older one.
    struct View {
        std::shared_ptr<const Trace> trace;
        LayoutOptions options;
        std::vector<bool> collapsed; // per process
        int scrollY = 0;
        TimeExtent range;
        bool hasRange = false;
        SliceId selected = kNoSlice;
        NavigationHistory history; // Back/Forward, in the older trace's slice numbers
    };

    TimelineSnapshotCarryOver(const Trace& older, const Trace& newer);

    // The older layout's choices on the newer trace; items new in it keep what `newer` has
    // (saved settings, defaults).
    LayoutOptions layoutOptions(const LayoutOptions& older, LayoutOptions newer) const;
    // Collapsed processes (by the older trace's processes) onto the newer trace's.
    void carryCollapsed(const std::vector<bool>& older, std::vector<bool>& newer) const;
    // A slice of the older snapshot in the newer one (same track, start and name), or kNoSlice.
    SliceId slice(SliceId older) const;
    // Back/Forward of the older trace (index 0) in the newer one's slices.
    void remap(NavigationHistory& history) const;

private:
    const Trace& m_older;
    const Trace& m_newer;
    // For each item of the older trace, its index in the newer one, or kNoIndex.
    std::vector<std::uint32_t> m_processes;
    std::vector<std::uint32_t> m_tracks;
    std::vector<std::uint32_t> m_counters;
};

} // namespace ks
