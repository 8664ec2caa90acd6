#pragma once
// The timeline: a custom-painted scroll area over the trace's tracks.
//
// Hooks for other panels (statistics, GPU overlays, search, details):
//   - revealSlice(SliceId) selects a slice, records it in Back/Forward history, expands
//     its group and scrolls/zooms so it is visible;
//   - setVisibleRange(start, end) zooms to a time range (e.g. a chart's selection);
//   - selectionChanged(SliceId) and visibleRangeChanged(start, end) report user actions;
//     a click on a thread instant's tick (a [memory] sample) selects it: instantSelected();
//   - traceChanged(trace) fires after setTrace();
//   - setMarks() shows the user's marks (the Notes dock) on the ruler (widgets/timelinemarks.h);
//   - Shift+drag on the tracks or a drag on the ruler selects a time range (F zooms to it,
//     Esc clears it): rangeSelected(start, end) / rangeCleared() report it, and
//     focusRange() is that range when there is one, else the visible range;
//   - the user's steps (TimelineContextMenu): a slice's context menu chooses its name (or a
//     pattern, through stepsDialogRequested) as the steps of its trace (each trace shown has
//     its own); stepRulesChanged() tells the analyses, which build their facts with stepRules();
//   - the track layout (TimelineLayoutSettings): pinned tracks, GPU first, folded Python lanes
//     and groups dragged by their header, from the label column's context menu, kept per
//     trace kind in QSettings; GPU metric tracks in each GPU's group after setGpuReport().
// Several traces (a comparison, the ranks of a run) share one time axis: setTraces()
// gives each its own offset on that axis and a top-level group, collapsible as one. The
// single-trace API above then speaks about the primary trace (index 0: its times, its
// tracks); selections, history and highlights are per trace (TraceSlice), and
// cross-trace links (matched collectives) are drawn on selection or all on a toggle.
// The widget is the thin QAbstractScrollArea that owns the parts: TimelineLanes (the traces,
// their layouts and frame), TimelineInput (mouse and keys), TimelineScrollBars,
// TimelineRangeSelection, CrossTraceLinks, TimelineGpuReports, TimelineTrackEditor,
// TimelineToolTip, TimelineContextMenu and TimelineSnapshotCarryOver; it keeps the view
// (scale and scroll), the selection and Back/Forward, and speaks for the parts through its
// slots and signals.
// Everything here runs on the GUI thread; the traces are immutable and shared read-only.
#include "core/facts/stepfinder.h"
#include "core/timeline/contentextent.h"
#include "core/timeline/navigationhistory.h"
#include "core/timeline/tracklayout.h"
#include "widgets/crosstracelinks.h"
#include "widgets/timelinegpureports.h"
#include "widgets/timelineinput.h"
#include "widgets/timelinelanes.h"
#include "widgets/timelinemarks.h"
#include "widgets/timelinerangeselection.h"
#include "widgets/timelinerenderer.h"
#include "widgets/timelinescrollbars.h"
#include "widgets/timelineselection.h"
#include "widgets/timelinesnapshotcarryover.h"
#include "widgets/timelinetrace.h"

#include <QAbstractScrollArea>

#include <functional>
#include <limits>
#include <memory>
#include <vector>

namespace ks {

class TimelineWidget : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget* parent = nullptr);

    // The primary trace (the first of several), null when none.
    std::shared_ptr<const Trace> trace() const;
    void setTrace(std::shared_ptr<const Trace> trace);
    void setTraces(std::vector<TimelineTrace> traces);
    // Like setTrace(), for a newer snapshot of the trace shown (a live recording): its GPU
    // metric tracks keep plotting the previous snapshot's report until setGpuReport() brings
    // this one's, so they neither vanish nor come back (nor the scroll bar) with each snapshot;
    // the user's view carries over (TimelineSnapshotCarryOver): the vertical scroll, collapsed
    // groups and the track layout, the selected time range and the selected slice, found
    // again by its track, start and name (none if the snapshot lacks it).
    void setNewerSnapshot(std::shared_ptr<const Trace> trace);
    // The trace shown came by setNewerSnapshot() (analyses of it let the previous one finish).
    bool showsNewerSnapshot() const { return m_showsNewerSnapshot; }
    std::uint32_t traceCount() const { return m_lanes.size(); }
    std::shared_ptr<const Trace> traceAt(std::uint32_t index) const;
    TimeNs traceOffset(std::uint32_t index) const;
    // Its group header ("Rank 1 · host", "NEW · file"); empty for a lone trace.
    QString traceTitle(std::uint32_t index) const;
    // A time of the primary trace in trace `index`'s own time, and back (offsets differ).
    TimeNs toTraceTime(std::uint32_t index, TimeNs primaryTime) const;
    TimeNs toPrimaryTime(std::uint32_t index, TimeNs traceTime) const;
    // Moves traces on the axis (a new alignment) keeping the view where it is.
    void setTraceOffsets(const std::vector<TimeNs>& offsets);
    // The trace of the last selection (0 at first): Details, search and revealSlice() act on it.
    std::uint32_t currentTrace() const { return m_selection.current; }

    SliceId selectedSlice() const { return m_selection.slice.slice; }
    // The selected thread instant of the current trace, or kNoIndex.
    std::uint32_t selectedInstant() const { return m_selection.instant; }
    TraceSlice selection() const { return m_selection.slice; }
    // The view in the primary trace's time.
    TimeScale timeScale() const;
    int scrollY() const { return m_state.scrollY; }
    const TrackLayout& trackLayout() const;
    const TrackLayout& trackLayout(std::uint32_t trace) const { return m_lanes[trace].layout; }
    const StackedTraceLayout& stackedLayout() const { return m_lanes.stack(); }
    int timeAreaWidth() const;
    // Viewport x of a time / the time at a viewport x (the label column is on the left),
    // in the primary trace's time or in a given trace's.
    double viewportXOf(TimeNs t) const;
    double viewportXOf(std::uint32_t trace, TimeNs t) const;
    TimeNs timeAtViewportX(double x) const;
    // Viewport y of the middle of a row, or -1 when its group is collapsed.
    int viewportYOfRow(std::uint32_t row) const;
    int viewportYOfRow(std::uint32_t trace, std::uint32_t row) const;
    bool isProcessCollapsed(std::uint32_t process) const;
    bool isProcessCollapsed(std::uint32_t trace, std::uint32_t process) const;
    bool isTraceCollapsed(std::uint32_t trace) const;
    // Slices highlighted in the primary trace (an insight's evidence), sorted.
    const std::vector<SliceId>& highlightedSlices() const;
    const std::vector<SliceId>& highlightedSlices(std::uint32_t trace) const;
    const std::vector<TimeExtent>& shadedRanges(std::uint32_t trace) const;
    bool showsAllFlows() const { return m_state.allFlowsInView; }
    bool canGoBack() const { return m_history.canGoBack(); }
    bool canGoForward() const { return m_history.canGoForward(); }
    const std::vector<CrossTraceLink>& crossLinks() const { return m_crossLinks.links(); }
    const std::vector<CrossTraceLink>& highlightedCrossLinks() const { return m_crossLinks.highlighted(); }
    // The cross-trace links drawn in the last frame (tests).
    std::size_t crossLinksDrawn() const { return m_crossLinks.drawn(); }
    // Names highlighted in a trace (by its StringIds); empty: none.
    const std::vector<bool>& highlightedNames(std::uint32_t trace) const { return m_lanes[trace].highlights.names(); }
    const std::vector<SliceId>& markedSlices(std::uint32_t trace) const { return m_lanes[trace].highlights.marked(); }
    bool isTrackPinned(std::uint32_t track) const { return trackLayout().isPinned(track); }
    bool gpuFirst() const { return trackLayout().options().gpuFirst; }
    bool isPythonLaneFolded(std::uint32_t track) const;
    // A counter or GPU metric track collapsed on its own to a thin plot (primary trace).
    bool isCounterTrackCollapsed(std::uint32_t counter) const { return trackLayout().isCounterCollapsed(counter); }
    bool isMetricTrackCollapsed(std::uint32_t process, std::uint32_t metric) const
    {
        return trackLayout().isMetricCollapsed(process, metric);
    }
    bool showsGpuMetricTracks() const { return m_gpuReports.shown(); }
    // The user's choice of steps for a trace shown (facts::StepRules; empty: none).
    facts::StepRules stepRules(std::uint32_t trace = 0) const;
    // What the tooltip shows at a viewport point (a slice, a counter's or GPU metric's
    // value); empty where there is nothing.
    QString toolTipTextAt(const QPoint& pos) const;
    // The selected time range in the primary trace's time (start < end), if any.
    bool hasSelectedRange() const { return m_range.active(); }
    TimeExtent selectedRange() const;
    // What range-following panels show: the selected range, else the visible range.
    TimeExtent focusRange() const;

    // At least half the window's height (issue 19: on a 1280×720 screen docks must not
    // squeeze the tracks to a strip); follows the window's resizes.
    QSize minimumSizeHint() const override;

    // Paints the whole widget as it would appear on screen (tests, benchmark).
    void renderTo(QPainter& painter);
    const TimelineRenderer& renderer() const;
    const TimelineMarks& marks() const { return m_marks; }
    const TimelineRenderer& renderer(std::uint32_t trace) const;

public Q_SLOTS:
    void revealSlice(ks::SliceId slice);
    void revealTraceSlice(ks::TraceSlice slice);
    // Selects a thread instant of the current trace (the slice selection is cleared).
    void selectInstant(std::uint32_t instant);
    void clearSelection();
    void setVisibleRange(ks::TimeNs start, ks::TimeNs end);
    void setTimeScale(const ks::TimeScale& scale);
    void zoomAt(double viewportX, double factor);
    void panBy(double pixels);
    void fitAll();
    void fitSelection();
    // Follow the selected slice's first incoming (`[`) / outgoing (`]`) flow; without
    // one, its cross-trace link in that direction.
    void followIncomingFlow();
    void followOutgoingFlow();
    void goBack();
    void goForward();
    void setProcessCollapsed(std::uint32_t process, bool collapsed);
    void setProcessCollapsed(std::uint32_t trace, std::uint32_t process, bool collapsed);
    void setTraceCollapsed(std::uint32_t trace, bool collapsed);
    void setShowAllFlows(bool show);
    // By the primary trace's category id; applied by name to every trace.
    void setFlowCategoryVisible(ks::StringId category, bool visible);
    // Names to highlight in the current trace (indexed by StringId); empty: no search active.
    void setHighlightedNames(std::vector<bool> names);
    void setHighlightedNames(std::uint32_t trace, std::vector<bool> names);
    // Slices to highlight in the primary trace, any order (an insight's evidence); the
    // rest is dimmed. Empty: none.
    void setHighlightedSlices(std::vector<ks::SliceId> slices);
    // The same for any trace; the other traces' evidence highlights are cleared.
    void setHighlightedSlices(std::uint32_t trace, std::vector<ks::SliceId> slices);
    // The same for every trace at once (by trace index; missing ones: none), as a critical
    // path across ranks lights up each rank's part.
    void setHighlightedSlicesByTrace(std::vector<std::vector<ks::SliceId>> byTrace);
    // Cross-trace links drawn highlighted whatever is selected (a path's waits for the last
    // rank); cleared with new traces.
    void setHighlightedCrossLinks(std::vector<ks::CrossTraceLink> links)
    {
        m_crossLinks.setHighlighted(std::move(links));
        viewport()->update();
    }
    // Slices of the current trace to highlight as search matches (args that matched), any order.
    void setSearchSliceMatches(const std::vector<ks::SliceId>& slices);
    void clearHighlights();
    // Slices outlined in a trace without dimming the rest (the same step on every rank).
    void setMarkedSlices(std::uint32_t trace, std::vector<ks::SliceId> slices);
    // Time ranges of a trace (its own time) shaded across the tracks: the GPU idle gaps an
    // insight counts. The other traces' shading is cleared; empty: none.
    void setShadedRanges(std::uint32_t trace, std::vector<ks::TimeExtent> ranges);
    // The primary trace holds the events from `time` on only (a live recording's window): the
    // time before is hatched and says so. The trace's start or earlier: nothing is left out.
    // Kept until changed; another trace set clears it.
    void setLeftOutBefore(ks::TimeNs time);
    ks::TimeNs leftOutBefore() const { return m_leftOutBefore; }
    void setCrossLinks(std::vector<ks::CrossTraceLink> links);
    void setShowAllCrossLinks(bool show);
    // Track layout of the primary trace.
    void setTrackPinned(std::uint32_t track, bool pinned);
    void setGpuFirst(bool first);
    // `remember` false: only for this view (a slice revealed inside the folded lane).
    void setPythonLaneFolded(std::uint32_t track, bool folded, bool remember = true);
    void setCounterTrackCollapsed(std::uint32_t counter, bool collapsed);
    void setMetricTrackCollapsed(std::uint32_t process, std::uint32_t metric, bool collapsed);
    // Moves a process group before another (kNoIndex: to the end).
    void moveGroup(std::uint32_t process, std::uint32_t before);
    void resetTrackLayout();
    // A saved view's layout (metricTracks aside), for this view only: not remembered.
    void setViewLayout(const ks::LayoutOptions& options);
    // Marks of the primary trace, in its time, drawn on the ruler; their note is its tooltip.
    void setMarks(std::vector<ks::notes::Mark> marks)
    {
        m_marks.setMarks(std::move(marks));
        viewport()->update();
    }
    // GPU metric tracks plot this report in the GPU groups of its trace (every trace shown
    // keeps its own report: each rank's GPU groups get their tracks); null: none at all.
    void setGpuReport(std::shared_ptr<const ks::gpu::GpuReport> report);
    // Off: no GPU metric tracks (the separate overlay block shows them instead).
    void setGpuMetricTracksShown(bool shown);
    // The user's steps for a trace and every other group of its file (the ranks of a merged
    // file); stepRulesChanged() when they differ.
    void setStepRules(std::uint32_t trace, ks::facts::StepRules rules);
    void setStepRules(ks::facts::StepRules rules) { setStepRules(0, std::move(rules)); }
    // In the primary trace's time.
    void setSelectedRange(ks::TimeNs start, ks::TimeNs end);
    void clearSelectedRange();
    void zoomToSelectedRange();

Q_SIGNALS:
    void traceChanged(std::shared_ptr<const ks::Trace> trace);
    void selectionChanged(ks::SliceId slice);
    // After selectionChanged(kNoSlice): a thread instant of the current trace was selected.
    void instantSelected(std::uint32_t instant);
    // A click on a counter track (the [memory] curves) or a GPU metric track of `trace`, at
    // this time of its own clock: the Memory dock lists what is alive then.
    void plotTimeClicked(std::uint32_t trace, ks::TimeNs time);
    // After currentTraceChanged when the selection moves to another trace.
    void traceSelectionChanged(ks::TraceSlice selection);
    void currentTraceChanged(std::uint32_t index, std::shared_ptr<const ks::Trace> trace);
    void visibleRangeChanged(ks::TimeNs start, ks::TimeNs end);
    void historyChanged();
    void rangeSelected(ks::TimeNs start, ks::TimeNs end);
    void rangeCleared();
    // Once per trace whose rules changed.
    void stepRulesChanged(std::uint32_t trace, const ks::facts::StepRules& rules);
    // "Use as Steps…" on a slice of `trace`: the host asks for a name or pattern, starting from `name`.
    void stepsDialogRequested(std::uint32_t trace, const QString& name);

protected:
    void paintEvent(QPaintEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    bool viewportEvent(QEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    friend class TimelineInput; // the input's actions are the widget's private ones

    TimelineSnapshotCarryOver::View snapshotView() const;
    void restoreSnapshotView(const TimelineSnapshotCarryOver::View& view);

    void select(TraceSlice slice, bool recordHistory);
    void selectInstant(std::uint32_t trace, std::uint32_t instant);
    // Selects the slice, expands its groups and scrolls it into view.
    void reveal(TraceSlice target, bool recordHistory);
    void ensureVisible(TraceSlice target);
    void followFlow(bool incoming);
    void showTraces(std::vector<TimelineTrace> traces);
    void rebuildLayout();
    void updateScrollBars();
    // The view in axis time (every trace's times plus its offset).
    void applyScale(const TimeScale& axisScale);
    void setAxisRange(TimeNs start, TimeNs end);
    // Where the view may go: the lanes' content with a margin, and the left-out time of a live
    // window (setLeftOutBefore), so that one can scroll to it and read that it is left out.
    TimeExtent navigableExtent() const;
    TimeNs axisStart() const { return navigableExtent().start; }
    TimeNs axisEnd() const { return navigableExtent().end; }
    TimeNs primaryOffset() const { return m_lanes.primaryOffset(); }
    void paintLeftOut(QPainter& painter, const QSize& size) const;
    void emitVisibleRange();
    TimelineLanes::Hit hitAt(const QPoint& pos) const;
    void paintFrame(QPainter& painter);
    void showToolTip(const QPoint& pos, const QPoint& globalPos);
    // A click on a counter or metric track's label collapses or expands it.
    void togglePlotTrack(std::uint32_t trace, const TimelineHit& label);
    void applyGpuMetricTracks();
    // The end of a range drag: rangeSelected(), or rangeCleared() for a click.
    void finishRangeDrag();
    // The user's marks over everything, in this area of the viewport.
    QRect marksArea() const { return {TimelineRenderer::kLabelWidth, 0, timeAreaWidth(), viewport()->height()}; }

    TimelineLanes m_lanes;
    TimelineViewState m_state; // axis scale and the shared scroll/cursor/toggles
    TimelineSelection m_selection;
    NavigationHistory m_history;
    TimelineRangeSelection m_range; // in axis time
    CrossTraceLinks m_crossLinks;
    TimelineGpuReports m_gpuReports;
    TimelineInput m_input{*this};
    TimelineScrollBars m_scrollBars;
    bool m_showsNewerSnapshot = false;
    ks::TimeNs m_leftOutBefore = std::numeric_limits<ks::TimeNs>::min(); // see setLeftOutBefore()
    TimelineMarks m_marks;
};

} // namespace ks
