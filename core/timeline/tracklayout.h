#pragma once
// The vertical layout of the timeline: process groups (collapsible headers), their
// tracks (one row per lane depth, plus a strip for instant markers) and counter plots.
// Processes without events are hidden. Pure geometry, so it is testable without Qt.
// LayoutOptions arrange it the user's way: GPU metric tracks at the top of a GPU's
// group, pinned tracks in a group above all, groups in a dragged order or GPUs first,
// Python lanes folded to their top row.
#include "core/model/trace.h"

#include <vector>

namespace ks {

struct LayoutMetrics {
    int processHeader = 22;
    int rowHeight = 18;
    int instantStrip = 8;
    int trackGap = 4;
    int counterHeight = 36;
    int metricHeight = 30;
    int collapsedPlotHeight = 14; // a counter or GPU metric track collapsed on its own
};

// The group header of pinned tracks (LayoutItem::index and group).
inline constexpr std::uint32_t kPinnedGroup = kNoIndex - 1;

struct LayoutOptions {
    std::vector<std::uint8_t> metricTracks; // per process: how many GPU metric tracks it shows
    std::vector<std::uint32_t> pinnedTracks; // shown in the Pinned group, in this order
    std::vector<std::uint32_t> groupOrder; // processes in this order first, the rest after
    bool gpuFirst = false; // device processes before host ones
    std::vector<bool> foldedPythonLanes; // per track: its Python lane shows its top row only
    std::vector<std::uint8_t> collapsedMetrics; // per process: bit m set, its metric track m is collapsed
    std::vector<bool> collapsedCounters; // per counter series
};

struct LayoutItem {
    enum class Kind : std::uint8_t { Process, Track, Counter, Metric };
    Kind kind = Kind::Process;
    std::uint32_t index = 0; // process, track, counter or metric index (kNoIndex: the header
        // of counters that belong to no process; kPinnedGroup: pinned)
    std::uint32_t group = 0; // the process this item belongs to (kNoIndex as above)
    int y = 0;
    int height = 0;
    bool collapsed = false; // process headers; counter and metric tracks (a thin plot)
};

class TrackLayout {
public:
    // `collapsed` is indexed by process; a missing entry means expanded. Counters whose
    // series has no process form one extra group, collapsed by `orphanCountersCollapsed`.
    void build(const Trace& trace, const std::vector<bool>& collapsed, bool orphanCountersCollapsed = false,
               const LayoutMetrics& metrics = {});
    // Applies to the next build().
    void setOptions(LayoutOptions options) { m_options = std::move(options); }
    const LayoutOptions& options() const { return m_options; }
    bool isPinned(std::uint32_t track) const;
    bool isMetricCollapsed(std::uint32_t process, std::uint32_t metric) const;
    bool isCounterCollapsed(std::uint32_t counter) const;

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
    LayoutOptions m_options;
    int m_totalHeight = 0;
};

// Display order of processes: by sort index when the trace gives one, then the others by pid.
std::vector<std::uint32_t> processDisplayOrder(const Trace& trace);
// That order arranged by the options: `groupOrder` first, then (gpuFirst) devices first.
std::vector<std::uint32_t> processDisplayOrder(const Trace& trace, const LayoutOptions& options);

} // namespace ks
