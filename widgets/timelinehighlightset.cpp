#include "widgets/timelinehighlightset.h"

#include <algorithm>

namespace ks {

void TimelineHighlightSet::setSlices(std::vector<SliceId> slices)
{
    std::sort(slices.begin(), slices.end());
    slices.erase(std::unique(slices.begin(), slices.end()), slices.end());
    m_slices = std::move(slices);
}

void TimelineHighlightSet::setFlowCategoryHidden(StringId category, bool hidden)
{
    if (category >= m_hiddenFlowCategories.size())
        m_hiddenFlowCategories.resize(category + 1, false);
    m_hiddenFlowCategories[category] = hidden;
}

bool TimelineHighlightSet::isFlowCategoryHidden(StringId category) const
{
    return category < m_hiddenFlowCategories.size() && m_hiddenFlowCategories[category];
}

void TimelineHighlightSet::clear()
{
    m_names.clear();
    m_slices.clear();
    m_marked.clear();
    m_shaded.clear();
}

void TimelineHighlightSet::applyTo(TimelineViewState& state) const
{
    state.highlightedNames = m_names.empty() ? nullptr : &m_names;
    state.hiddenFlowCategories = m_hiddenFlowCategories.empty() ? nullptr : &m_hiddenFlowCategories;
    state.markedSlices = m_marked.empty() ? nullptr : &m_marked;
    state.highlightedSlices = m_slices.empty() ? nullptr : &m_slices;
}

} // namespace ks
