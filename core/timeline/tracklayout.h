#pragma once
// The vertical layout of the timeline: process groups (collapsible headers), their
// tracks (one row per lane depth, plus a strip for instant markers) and counter plots.
// Processes without events are hidden. Pure geometry, so it is testable without Qt.
#include "core/model/trace.h"

#include <vector>

namespace ks {

struct LayoutMetrics {
    int processHeader = 22;
    int rowHeight = 18;
    int instantStrip = 8;
    int trackGap = 4;
    int counterHeight = 36;
};

struct LayoutItem {
    enum class Kind : std::uint8_t { Process, Track, Counter };
    Kind kind = Kind::Process;
    std::uint32_t index = 0; // process, track or counter index (kNoIndex: the header of
                             // counters that belong to no process)
    std::uint32_t group = 0; // the process this item belongs to (kNoIndex as above)
    int y = 0;
    int height = 0;
    bool collapsed = false; // process headers only
};

class TrackLayout {
public:
    // `collapsed` is indexed by process; a missing entry means expanded. Counters whose
    // series has no process form one extra group, collapsed by `orphanCountersCollapsed`.
    void build(const Trace& trace, const std::vector<bool>& collapsed,
               bool orphanCountersCollapsed = false, const LayoutMetrics& metrics = {});
    // Lays out only these processes (one GPU's share of a merged multi-rank file), and no
    // process-less counters; empty: all. Applies to the next build().
    void setShownProcesses(std::vector<std::uint32_t> processes) { m_shownProcesses = std::move(processes); }

    const LayoutMetrics& metrics() const { return m_metrics; }
    const std::vector<LayoutItem>& items() const { return m_items; }
    int totalHeight() const { return m_totalHeight; }
    // Processes (and the orphan-counter group, kNoIndex) in display order, hidden ones left out.
    const std::vector<std::uint32_t>& groups() const { return m_groups; }

    // Top of the row, or -1 when its group is collapsed (or the track is not laid out).
    int rowTop(std::uint32_t row) const { return row < m_rowTop.size() ? m_rowTop[row] : -1; }
    // The row at content y, or kNoIndex.
    std::uint32_t rowAt(int y) const;
    // The item covering content y, or nullptr.
    const LayoutItem* itemAt(int y) const;
    // Index range [first, last) of the items intersecting [yTop, yBottom).
    std::pair<std::size_t, std::size_t> itemsIn(int yTop, int yBottom) const;
    // Top of the instant strip of a track, or -1 if the track has none or is hidden.
    int instantStripTop(std::uint32_t track) const;

private:
    LayoutMetrics m_metrics;
    std::vector<LayoutItem> m_items;
    std::vector<std::uint32_t> m_groups;
    std::vector<int> m_rowTop;
    std::vector<int> m_instantTop; // per track
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_trackRows; // [rowBegin, rowEnd)
    std::vector<std::uint32_t> m_shownProcesses;
    int m_totalHeight = 0;
};

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

// Display order of processes: by sort index when the trace gives one, then the others by pid.
std::vector<std::uint32_t> processDisplayOrder(const Trace& trace);

} // namespace ks
