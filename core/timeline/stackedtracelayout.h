#pragma once
#include "core/model/trace.h"

#include <cstdint>
#include <vector>

namespace ks {

// Several traces one above the other (a comparison, the ranks of a run): each trace has a
// header (its top-level group, collapsible as one) followed by its own TrackLayout. A
// single trace is laid out without a header, exactly as before.
class StackedTraceLayout {
public:
    static constexpr int kHeaderHeight = 24;

    // `bodyHeights`: each trace's TrackLayout::totalHeight(); `collapsed` by trace.
    void build(const std::vector<int>& bodyHeights, const std::vector<bool>& collapsed);

    std::size_t size() const { return m_entries.size(); }
    bool hasHeaders() const { return m_entries.size() > 1; }
    int headerTop(std::uint32_t trace) const { return m_entries[trace].headerTop; }
    // Content y where the trace's own layout starts, and its visible height (0 collapsed).
    int bodyTop(std::uint32_t trace) const { return m_entries[trace].bodyTop; }
    int bodyHeight(std::uint32_t trace) const { return m_entries[trace].bodyHeight; }
    bool isCollapsed(std::uint32_t trace) const { return m_entries[trace].collapsed; }
    int totalHeight() const { return m_totalHeight; }

    struct Hit {
        std::uint32_t trace = kNoIndex;
        bool header = false;
    };
    // The trace (and whether its header) at content y.
    Hit at(int y) const;

private:
    struct Entry {
        int headerTop = -1;
        int bodyTop = 0;
        int bodyHeight = 0;
        bool collapsed = false;
    };
    std::vector<Entry> m_entries;
    int m_totalHeight = 0;
};

} // namespace ks
