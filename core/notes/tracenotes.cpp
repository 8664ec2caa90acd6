#include "core/notes/tracenotes.h"

#include <algorithm>

namespace ks::notes {

namespace {

// Removes the indices not below `size`; counts them in `dropped`.
void keepBelow(std::vector<std::uint32_t>& indices, std::size_t size, std::size_t& dropped)
{
    const auto end = std::remove_if(indices.begin(), indices.end(), [size](std::uint32_t i) { return i >= size; });
    dropped += std::size_t(indices.end() - end);
    indices.erase(end, indices.end());
}

template <typename T>
void fitPerIndex(std::vector<T>& values, std::size_t size, std::size_t& dropped)
{
    if (values.size() > size) {
        dropped += values.size() - size;
        values.resize(size);
    }
}

} // namespace

const SavedView* TraceNotes::view(const std::string& name) const
{
    const auto it = std::find_if(views.begin(), views.end(), [&](const SavedView& v) { return v.name == name; });
    return it == views.end() ? nullptr : &*it;
}

void TraceNotes::putView(SavedView view)
{
    const auto it = std::find_if(views.begin(), views.end(), [&](const SavedView& v) { return v.name == view.name; });
    if (it != views.end())
        *it = std::move(view);
    else
        views.push_back(std::move(view));
}

std::size_t fitToTrace(TraceNotes& notes, const Trace& trace)
{
    std::size_t dropped = 0;
    const auto badMark = [](const Mark& m) { return m.end < m.start; };
    const auto marksEnd = std::remove_if(notes.marks.begin(), notes.marks.end(), badMark);
    dropped += std::size_t(notes.marks.end() - marksEnd);
    notes.marks.erase(marksEnd, notes.marks.end());
    const std::size_t tracks = trace.tracks().size();
    const std::size_t processes = trace.processes().size();
    for (SavedView& view : notes.views) {
        if (view.visible.end <= view.visible.start) {
            view.visible = {};
            ++dropped;
        }
        if (view.selectedRange && view.selectedRange->end <= view.selectedRange->start) {
            view.selectedRange.reset();
            ++dropped;
        }
        if (view.selectedSlice != kNoSlice && view.selectedSlice >= trace.slices().size()) {
            view.selectedSlice = kNoSlice;
            ++dropped;
        }
        LayoutOptions& layout = view.layout;
        layout.metricTracks.clear();
        keepBelow(layout.pinnedTracks, tracks, dropped);
        keepBelow(layout.groupOrder, processes, dropped);
        keepBelow(view.collapsedProcesses, processes, dropped);
        fitPerIndex(layout.foldedPythonLanes, tracks, dropped);
        fitPerIndex(layout.collapsedMetrics, processes, dropped);
        fitPerIndex(layout.collapsedCounters, trace.counters().size(), dropped);
        view.scrollY = std::max(0, view.scrollY);
    }
    return dropped;
}

} // namespace ks::notes
