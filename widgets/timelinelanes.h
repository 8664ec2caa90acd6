#pragma once
// The traces on the timeline's shared time axis, one band (lane) each, stacked under
// their headers: what each shows (layout, folded groups, highlights), where each sits on
// the axis and on screen, which one is under a point, and the frame they paint together.
// A single trace has no header and paints exactly as the single-trace renderer does.
#include "core/timeline/stackedtracelayout.h"
#include "core/timeline/tracklayout.h"
#include "widgets/timelinelane.h"
#include "widgets/timelineselection.h"

#include <functional>
#include <vector>

class QPainter;

namespace ks {

class TimelineLanes {
public:
    struct Hit {
        std::uint32_t trace = kNoIndex;
        bool header = false; // the trace's own group header
        TimelineHit hit;
    };

    TimelineLanes();

    // Replaces the traces shown; a lone trace gets the user's saved track layout, several
    // start with their host processes collapsed so every trace's GPU streams fit together.
    void show(std::vector<TimelineTrace> traces);
    std::uint32_t size() const { return std::uint32_t(m_lanes.size()); }
    bool empty() const { return m_lanes.empty(); }
    TimelineLane& operator[](std::uint32_t trace) { return m_lanes[trace]; }
    const TimelineLane& operator[](std::uint32_t trace) const { return m_lanes[trace]; }
    std::vector<TimelineLane>::iterator begin() { return m_lanes.begin(); }
    std::vector<TimelineLane>::iterator end() { return m_lanes.end(); }
    std::vector<TimelineLane>::const_iterator begin() const { return m_lanes.begin(); }
    std::vector<TimelineLane>::const_iterator end() const { return m_lanes.end(); }

    // Null / 0 / empty for an index past the last trace.
    std::shared_ptr<const Trace> traceAt(std::uint32_t trace) const;
    facts::StepRules stepRules(std::uint32_t trace) const;
    // The user's steps for a trace and every other lane of its file (a merged file's ranks
    // share its steps, as they share its facts); returns the lanes whose steps changed.
    std::vector<std::uint32_t> setStepRules(std::uint32_t trace, const facts::StepRules& rules);
    TimeNs offset(std::uint32_t trace) const;
    QString title(std::uint32_t trace) const;
    TimeNs primaryOffset() const { return offset(0); }
    void setOffsets(const std::vector<TimeNs>& offsets);
    // The union on the axis of every trace's [start, end], or of each one's content (Fit All).
    TimeExtent axisExtent(bool contentOnly = false) const;
    // Where the view may go (pan, zoom out, scroll bar): the content with a small margin, not
    // the traces' own ends, which a far "Record Window End" puts 40 % past the last event.
    TimeExtent navigableExtent() const;

    // The trace's layout and renderer; without traces, an empty one (that paints the ruler).
    const TrackLayout& layout(std::uint32_t trace) const;
    const TimelineRenderer& renderer(std::uint32_t trace) const;
    void setChrome(const TimelineChrome& chrome);
    const TimelineChrome& chrome() const { return m_emptyRenderer.chrome(); }
    const StackedTraceLayout& stack() const { return m_stack; }

    bool isProcessCollapsed(std::uint32_t trace, std::uint32_t process) const;
    // False when nothing changed; the caller relays out.
    bool setProcessCollapsed(std::uint32_t trace, std::uint32_t process, bool collapsed);
    bool isTraceCollapsed(std::uint32_t trace) const;
    bool setTraceCollapsed(std::uint32_t trace, bool collapsed);
    // Changes a trace's layout options; `remember` (a lone trace only): saves them too.
    void changeLayoutOptions(std::uint32_t trace, const std::function<void(LayoutOptions&)>& change, bool remember);
    // Lays out every trace and the stack after a change of what is shown.
    void relayout();

    // `axis`: the scale in axis time and the shared scroll; the trace's own view of it.
    TimelineViewState laneState(std::uint32_t trace, const TimelineViewState& axis,
                                const TimelineSelection& selection) const;
    // Viewport y of the middle of a row, or -1 when its group is collapsed.
    int viewportYOfRow(std::uint32_t trace, std::uint32_t row, int scrollY) const;
    Hit hitAt(const QPoint& pos, const QSize& size, const TimelineViewState& axis,
              const TimelineSelection& selection) const;
    // Where a cross-trace link attaches to a slice (a collapsed trace: its header).
    QPointF anchorOf(TraceSlice end, const QSize& size, const TimelineViewState& axis,
                     const TimelineSelection& selection, bool* inside) const;

    // Every trace's tracks, the trace headers and (`ruler`) the shared ruler. Several traces:
    // `beforeRuler` paints over the tracks but under the ruler (the cross-trace links).
    void paint(QPainter& painter, const QSize& size, const TimelineViewState& axis, const TimelineSelection& selection,
               const std::function<void(QPainter&)>& beforeRuler);
    // Shades each trace's shaded ranges below the ruler, across every track.
    void paintShadedRanges(QPainter& painter, const QSize& size, const TimeScale& axis) const;

private:
    void paintHeaders(QPainter& painter, const QSize& size, int scrollY) const;

    std::vector<TimelineLane> m_lanes;
    TimelineRenderer m_emptyRenderer; // paints the ruler when there is no trace
    TrackLayout m_emptyLayout;
    StackedTraceLayout m_stack;
    std::vector<bool> m_traceCollapsed;
};

} // namespace ks
