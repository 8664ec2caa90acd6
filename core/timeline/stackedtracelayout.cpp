#include "core/timeline/stackedtracelayout.h"

namespace ks {

void StackedTraceLayout::build(const std::vector<int>& bodyHeights, const std::vector<bool>& collapsed)
{
    m_entries.clear();
    const bool headers = bodyHeights.size() > 1;
    int y = 0;
    for (std::size_t i = 0; i < bodyHeights.size(); ++i) {
        Entry entry;
        entry.collapsed = headers && i < collapsed.size() && collapsed[i];
        if (headers) {
            entry.headerTop = y;
            y += kHeaderHeight;
        }
        entry.bodyTop = y;
        entry.bodyHeight = entry.collapsed ? 0 : bodyHeights[i];
        y += entry.bodyHeight;
        m_entries.push_back(entry);
    }
    m_totalHeight = y;
}

StackedTraceLayout::Hit StackedTraceLayout::at(int y) const
{
    for (std::uint32_t i = 0; i < m_entries.size(); ++i) {
        const Entry& e = m_entries[i];
        if (e.headerTop >= 0 && y >= e.headerTop && y < e.bodyTop)
            return {i, true};
        if (y >= e.bodyTop && y < e.bodyTop + e.bodyHeight)
            return {i, false};
    }
    return {};
}

} // namespace ks
