#pragma once
// What is highlighted in one trace of the timeline: search matches (by name or slice), an
// insight's evidence, slices marked on every rank, shaded time ranges and hidden flow
// categories. The renderer reads them through the view state.
#include "core/timeline/contentextent.h"
#include "widgets/timelineviewstate.h"

#include <vector>

namespace ks {

class TimelineHighlightSet {
public:
    // Names (indexed by StringId) of a search; empty: none.
    const std::vector<bool>& names() const { return m_names; }
    void setNames(std::vector<bool> names) { m_names = std::move(names); }
    // Highlighted slices, sorted; the rest of the trace is dimmed. Empty: none.
    const std::vector<SliceId>& slices() const { return m_slices; }
    // Any order, duplicates allowed.
    void setSlices(std::vector<SliceId> slices);
    // Outlined without dimming the rest (the same step on every rank).
    const std::vector<SliceId>& marked() const { return m_marked; }
    void setMarked(std::vector<SliceId> slices) { m_marked = std::move(slices); }
    // In the trace's own time, shaded across the tracks (the GPU idle gaps an insight counts).
    const std::vector<TimeExtent>& shadedRanges() const { return m_shaded; }
    void setShadedRanges(std::vector<TimeExtent> ranges) { m_shaded = std::move(ranges); }
    void setFlowCategoryHidden(StringId category, bool hidden);
    bool isFlowCategoryHidden(StringId category) const;
    // Everything but the hidden flow categories, which are a filter rather than a highlight.
    void clear();
    // Points the state's highlight fields at this set (which must outlive the state).
    void applyTo(TimelineViewState& state) const;

private:
    std::vector<bool> m_names;
    std::vector<bool> m_hiddenFlowCategories;
    std::vector<SliceId> m_marked;
    std::vector<SliceId> m_slices; // sorted
    std::vector<TimeExtent> m_shaded;
};

} // namespace ks
