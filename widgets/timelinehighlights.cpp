// The timeline's highlights and toggles: search matches (by name or slice), an insight's
// evidence, marked slices, hidden flow categories and cross-trace links.
#include "widgets/timelinewidget.h"

#include <algorithm>

namespace ks {

void TimelineWidget::setShowAllFlows(bool show)
{
    m_state.allFlowsInView = show;
    viewport()->update();
}

void TimelineWidget::setFlowCategoryVisible(StringId category, bool visible)
{
    if (m_lanes.empty())
        return;
    const std::string_view name = m_lanes[0].source.trace->str(category);
    for (Lane& lane : m_lanes) {
        for (const FlowCategoryStats& stats : lane.source.trace->flowStats()) {
            if (lane.source.trace->str(stats.category) != name)
                continue;
            if (stats.category >= lane.hiddenFlowCategories.size())
                lane.hiddenFlowCategories.resize(stats.category + 1, false);
            lane.hiddenFlowCategories[stats.category] = !visible;
        }
    }
    viewport()->update();
}

void TimelineWidget::setHighlightedNames(std::vector<bool> names)
{
    for (std::uint32_t i = 0; i < m_lanes.size(); ++i) {
        if (i != m_current)
            m_lanes[i].highlightedNames.clear();
    }
    setHighlightedNames(m_current, std::move(names));
}

void TimelineWidget::setHighlightedNames(std::uint32_t trace, std::vector<bool> names)
{
    if (trace >= m_lanes.size())
        return;
    m_lanes[trace].highlightedNames = std::move(names);
    viewport()->update();
}

void TimelineWidget::clearHighlights()
{
    for (Lane& lane : m_lanes) {
        lane.highlightedNames.clear();
        lane.highlightedSlices.clear();
        lane.markedSlices.clear();
        lane.shadedRanges.clear();
    }
    viewport()->update();
}

void TimelineWidget::setSearchSliceMatches(const std::vector<SliceId>& slices)
{
    if (m_current >= m_lanes.size())
        return;
    std::vector<SliceId>& highlighted = m_lanes[m_current].highlightedSlices;
    highlighted = slices;
    std::sort(highlighted.begin(), highlighted.end());
    viewport()->update();
}

void TimelineWidget::setMarkedSlices(std::uint32_t trace, std::vector<SliceId> slices)
{
    if (trace >= m_lanes.size())
        return;
    m_lanes[trace].markedSlices = std::move(slices);
    viewport()->update();
}

void TimelineWidget::setCrossLinks(std::vector<CrossTraceLink> links)
{
    m_crossLinks = std::move(links);
    viewport()->update();
}

void TimelineWidget::setShowAllCrossLinks(bool show)
{
    m_allCrossLinks = show;
    viewport()->update();
}

const std::vector<SliceId>& TimelineWidget::highlightedSlices() const
{
    static const std::vector<SliceId> none;
    return m_lanes.empty() ? none : m_lanes[0].highlightedSlices;
}

const std::vector<SliceId>& TimelineWidget::highlightedSlices(std::uint32_t trace) const
{
    static const std::vector<SliceId> none;
    return trace < m_lanes.size() ? m_lanes[trace].highlightedSlices : none;
}

void TimelineWidget::setHighlightedSlices(std::vector<SliceId> slices) { setHighlightedSlices(0, std::move(slices)); }

void TimelineWidget::setHighlightedSlices(std::uint32_t trace, std::vector<SliceId> slices)
{
    if (trace >= m_lanes.size())
        return;
    for (Lane& lane : m_lanes)
        lane.highlightedSlices.clear();
    std::sort(slices.begin(), slices.end());
    slices.erase(std::unique(slices.begin(), slices.end()), slices.end());
    m_lanes[trace].highlightedSlices = std::move(slices);
    viewport()->update();
}

} // namespace ks
