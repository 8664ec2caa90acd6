#include "widgets/timelinewidget.h"

#include "core/timeline/flowlinks.h"
#include "core/timeline/revealview.h"
#include "widgets/timelinecontextmenu.h"
#include "widgets/timelinetooltip.h"
#include "widgets/timelinetrackeditor.h"

#include <QContextMenuEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>
#include <utility>

namespace ks {

namespace {

std::vector<TimelineTrace> only(std::shared_ptr<const Trace> trace)
{
    std::vector<TimelineTrace> traces;
    if (trace)
        traces.push_back({std::move(trace), 0, {}, {}});
    return traces;
}

// The slice's [start, end] on the shared axis.
TimeExtent axisExtentOf(const TimelineWidget& timeline, TraceSlice slice)
{
    const SliceTable& slices = timeline.traceAt(slice.trace)->slices();
    const TimeNs offset = timeline.traceOffset(slice.trace);
    return {slices.start[slice.slice] + offset, slices.end(slice.slice) + offset};
}

} // namespace

TimelineWidget::TimelineWidget(QWidget* parent)
    : QAbstractScrollArea(parent)
    , m_scrollBars(*horizontalScrollBar(), *verticalScrollBar())
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    horizontalScrollBar()->setRange(0, 0);
    m_lanes.setChrome(TimelineChrome::fromPalette(palette()));
}

QSize TimelineWidget::minimumSizeHint() const
{
    constexpr QSize kFloor(400, 200);
    const QWidget* top = window();
    if (top == this)
        return kFloor;
    return QSize(kFloor.width(), std::max(kFloor.height(), top->height() / 2));
}

void TimelineWidget::showEvent(QShowEvent* event)
{
    if (window() != this)
        window()->installEventFilter(this); // once per window: Qt ignores a repeat
    updateGeometry();
    QAbstractScrollArea::showEvent(event);
}

bool TimelineWidget::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == window() && event->type() == QEvent::Resize)
        updateGeometry();
    return QAbstractScrollArea::eventFilter(watched, event);
}

void TimelineWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange) {
        m_lanes.setChrome(TimelineChrome::fromPalette(palette()));
        viewport()->update();
    }
    QAbstractScrollArea::changeEvent(event);
}

std::shared_ptr<const Trace> TimelineWidget::trace() const { return m_lanes.traceAt(0); }

std::shared_ptr<const Trace> TimelineWidget::traceAt(std::uint32_t index) const { return m_lanes.traceAt(index); }

TimeNs TimelineWidget::traceOffset(std::uint32_t index) const { return m_lanes.offset(index); }

QString TimelineWidget::traceTitle(std::uint32_t index) const { return m_lanes.title(index); }

TimeNs TimelineWidget::toTraceTime(std::uint32_t index, TimeNs primaryTime) const
{
    return primaryTime + primaryOffset() - traceOffset(index);
}

TimeNs TimelineWidget::toPrimaryTime(std::uint32_t index, TimeNs traceTime) const
{
    return traceTime + traceOffset(index) - primaryOffset();
}

const TrackLayout& TimelineWidget::trackLayout() const { return m_lanes.layout(0); }

const TimelineRenderer& TimelineWidget::renderer() const { return renderer(0); }

const TimelineRenderer& TimelineWidget::renderer(std::uint32_t trace) const { return m_lanes.renderer(trace); }

void TimelineWidget::setTrace(std::shared_ptr<const Trace> trace) { setTraces(only(std::move(trace))); }

void TimelineWidget::setTraces(std::vector<TimelineTrace> traces)
{
    m_showsNewerSnapshot = false;
    m_leftOutBefore = std::numeric_limits<TimeNs>::min();
    m_gpuReports.keepShown(traces);
    showTraces(std::move(traces));
}

void TimelineWidget::setNewerSnapshot(std::shared_ptr<const Trace> trace)
{
    m_gpuReports.carryPrimary(m_lanes);
    m_showsNewerSnapshot = true;
    const TimelineSnapshotCarryOver::View view = snapshotView();
    std::vector<TimelineTrace> traces = only(std::move(trace));
    if (!m_lanes.empty())
        traces.front().stepRules = m_lanes[0].source.stepRules; // the same recording's
    showTraces(std::move(traces));
    restoreSnapshotView(view);
}

void TimelineWidget::showTraces(std::vector<TimelineTrace> traces)
{
    m_lanes.show(std::move(traces));
    m_crossLinks.reset();
    m_history.clear();
    m_selection = {};
    m_state.scrollY = 0;
    m_range = {};
    m_input.reset();
    applyGpuMetricTracks(); // rebuilds the layout
    fitAll();
    Q_EMIT traceChanged(trace());
    Q_EMIT currentTraceChanged(0, trace());
    Q_EMIT selectionChanged(kNoSlice);
    Q_EMIT historyChanged();
}

void TimelineWidget::setTraceOffsets(const std::vector<TimeNs>& offsets)
{
    const TimeNs oldPrimary = primaryOffset();
    m_lanes.setOffsets(offsets);
    // The primary trace keeps its place on screen; the others move.
    applyScale(TimeScale(m_state.scale.viewStart() + primaryOffset() - oldPrimary, m_state.scale.nsPerPixel()));
}

TimeScale TimelineWidget::timeScale() const
{
    return TimeScale(m_state.scale.viewStart() - primaryOffset(), m_state.scale.nsPerPixel());
}

int TimelineWidget::timeAreaWidth() const { return TimelineRenderer::timeAreaWidth(viewport()->size()); }

double TimelineWidget::viewportXOf(TimeNs t) const { return viewportXOf(0, t); }

double TimelineWidget::viewportXOf(std::uint32_t trace, TimeNs t) const
{
    return TimelineRenderer::kLabelWidth + m_state.scale.timeToX(t + traceOffset(trace));
}

TimeNs TimelineWidget::timeAtViewportX(double x) const
{
    return m_state.scale.xToTime(x - TimelineRenderer::kLabelWidth) - primaryOffset();
}

int TimelineWidget::viewportYOfRow(std::uint32_t row) const { return viewportYOfRow(0, row); }

int TimelineWidget::viewportYOfRow(std::uint32_t trace, std::uint32_t row) const
{
    return m_lanes.viewportYOfRow(trace, row, m_state.scrollY);
}

bool TimelineWidget::isProcessCollapsed(std::uint32_t process) const { return isProcessCollapsed(0, process); }

bool TimelineWidget::isProcessCollapsed(std::uint32_t trace, std::uint32_t process) const
{
    return m_lanes.isProcessCollapsed(trace, process);
}

bool TimelineWidget::isTraceCollapsed(std::uint32_t trace) const { return m_lanes.isTraceCollapsed(trace); }

void TimelineWidget::renderTo(QPainter& painter) { paintFrame(painter); }

void TimelineWidget::rebuildLayout()
{
    m_lanes.relayout();
    updateScrollBars();
    viewport()->update();
}

void TimelineWidget::updateScrollBars()
{
    const TimeExtent extent = m_lanes.empty() ? TimeExtent{} : navigableExtent();
    m_scrollBars.show(m_state, extent, timeAreaWidth(), m_lanes.stack().totalHeight(),
                      TimelineRenderer::tracksAreaHeight(viewport()->size()), trackLayout().metrics().rowHeight);
}

void TimelineWidget::emitVisibleRange()
{
    const TimeScale scale = timeScale();
    Q_EMIT visibleRangeChanged(scale.viewStart(), scale.viewEnd(timeAreaWidth()));
}

void TimelineWidget::scrollContentsBy(int, int)
{
    if (m_scrollBars.updating())
        return;
    m_state.scrollY = verticalScrollBar()->value();
    if (!m_lanes.empty() && axisEnd() > axisStart()) {
        const TimeNs start = m_scrollBars.viewStart(navigableExtent());
        if (start != m_state.scale.viewStart()) {
            m_state.scale = TimeScale(start, m_state.scale.nsPerPixel());
            emitVisibleRange();
        }
    }
    viewport()->update();
}

void TimelineWidget::applyScale(const TimeScale& scale)
{
    if (!m_lanes.empty())
        m_state.scale = scale.clampedTo(axisStart(), axisEnd(), timeAreaWidth());
    else
        m_state.scale = scale;
    updateScrollBars();
    viewport()->update();
    emitVisibleRange();
}

void TimelineWidget::setTimeScale(const TimeScale& scale)
{
    applyScale(TimeScale(scale.viewStart() + primaryOffset(), scale.nsPerPixel()));
}

void TimelineWidget::setAxisRange(TimeNs start, TimeNs end) { applyScale(TimeScale::fit(start, end, timeAreaWidth())); }

void TimelineWidget::setVisibleRange(TimeNs start, TimeNs end)
{
    setAxisRange(start + primaryOffset(), end + primaryOffset());
}

void TimelineWidget::zoomAt(double viewportX, double factor)
{
    const double x = std::clamp(viewportX - TimelineRenderer::kLabelWidth, 0.0, double(timeAreaWidth()));
    applyScale(m_state.scale.zoomedAt(x, factor));
}

void TimelineWidget::panBy(double pixels) { applyScale(m_state.scale.pannedBy(pixels)); }

void TimelineWidget::fitAll()
{
    if (m_lanes.empty())
        return;
    const TimeExtent content = m_lanes.axisExtent(true);
    setAxisRange(content.start, content.end);
}

void TimelineWidget::fitSelection()
{
    const TraceSlice selected = m_selection.slice;
    if (!selected.valid())
        return;
    applyScale(scaleAroundSlice(axisExtentOf(*this, selected), timeAreaWidth()));
}

void TimelineWidget::select(TraceSlice slice, bool recordHistory)
{
    m_selection.slice = slice;
    m_selection.instant = kNoIndex;
    if (recordHistory)
        m_history.visit(slice);
    if (slice.valid() && slice.trace != m_selection.current) {
        m_selection.current = slice.trace;
        Q_EMIT currentTraceChanged(slice.trace, traceAt(slice.trace));
    }
    viewport()->update();
    Q_EMIT selectionChanged(slice.slice);
    Q_EMIT traceSelectionChanged(slice);
    Q_EMIT historyChanged();
}

void TimelineWidget::clearSelection()
{
    if (m_selection.slice.valid() || m_selection.instant != kNoIndex)
        select({m_selection.current, kNoSlice}, false);
}

void TimelineWidget::selectInstant(std::uint32_t instant) { selectInstant(m_selection.current, instant); }

void TimelineWidget::selectInstant(std::uint32_t trace, std::uint32_t instant)
{
    if (trace >= m_lanes.size() || instant >= traceAt(trace)->instants().size())
        return;
    select({trace, kNoSlice}, false); // Details first clears, then shows the instant
    m_selection.instant = instant;
    viewport()->update();
    Q_EMIT instantSelected(instant);
}

void TimelineWidget::ensureVisible(TraceSlice target)
{
    applyScale(scaleToReveal(m_state.scale, axisExtentOf(*this, target), timeAreaWidth(), navigableExtent()));

    const TrackLayout& layout = m_lanes[target.trace].layout;
    const int rowTop = layout.rowTop(traceAt(target.trace)->slices().row[target.slice]);
    const int top = rowTop < 0 ? -1 : m_lanes.stack().bodyTop(target.trace) + rowTop;
    const auto scrollY = scrollToReveal(top, layout.metrics().rowHeight, m_state.scrollY,
                                        TimelineRenderer::tracksAreaHeight(viewport()->size()));
    if (scrollY) {
        verticalScrollBar()->setValue(*scrollY);
        m_state.scrollY = verticalScrollBar()->value();
    }
    viewport()->update();
}

void TimelineWidget::revealSlice(SliceId slice) { reveal({m_selection.current, slice}, true); }

void TimelineWidget::revealTraceSlice(TraceSlice slice) { reveal(slice, true); }

void TimelineWidget::reveal(TraceSlice target, bool recordHistory)
{
    if (target.trace >= m_lanes.size() || target.slice >= traceAt(target.trace)->slices().size())
        return;
    const Trace& trace = *traceAt(target.trace);
    const std::uint32_t process = trace.tracks()[trace.trackOf(target.slice)].process;
    if (isTraceCollapsed(target.trace))
        setTraceCollapsed(target.trace, false);
    if (isProcessCollapsed(target.trace, process))
        setProcessCollapsed(target.trace, process, false);
    if (target.trace == 0 && trackLayout().rowTop(trace.slices().row[target.slice]) < 0)
        setPythonLaneFolded(trace.trackOf(target.slice), false, false);
    select(target, recordHistory);
    ensureVisible(target);
}

void TimelineWidget::followFlow(bool incoming)
{
    const TraceSlice from = m_selection.slice;
    if (!from.valid())
        return;
    const TimelineLane& lane = m_lanes[from.trace];
    const Trace& trace = *lane.source.trace;
    for (const FlowLink& link : flowLinksOf(trace, from.slice)) {
        const StringId category = trace.flows()[link.flow].category;
        if (link.incoming == incoming && !lane.highlights.isFlowCategoryHidden(category)) {
            revealTraceSlice({from.trace, link.other});
            return;
        }
    }
    if (const TraceSlice other = m_crossLinks.follow(from, incoming); other.valid())
        revealTraceSlice(other);
}

void TimelineWidget::followIncomingFlow() { followFlow(true); }

void TimelineWidget::followOutgoingFlow() { followFlow(false); }

void TimelineWidget::goBack() { reveal(m_history.back(), false); }

void TimelineWidget::goForward() { reveal(m_history.forward(), false); }

void TimelineWidget::setProcessCollapsed(std::uint32_t process, bool collapsed)
{
    setProcessCollapsed(0, process, collapsed);
}

void TimelineWidget::setProcessCollapsed(std::uint32_t trace, std::uint32_t process, bool collapsed)
{
    if (m_lanes.setProcessCollapsed(trace, process, collapsed))
        rebuildLayout();
}

void TimelineWidget::setTraceCollapsed(std::uint32_t trace, bool collapsed)
{
    if (m_lanes.setTraceCollapsed(trace, collapsed))
        rebuildLayout();
}

TimelineLanes::Hit TimelineWidget::hitAt(const QPoint& pos) const
{
    return m_lanes.hitAt(pos, viewport()->size(), m_state, m_selection);
}

void TimelineWidget::paintFrame(QPainter& painter)
{
    const QSize size = viewport()->size();
    m_crossLinks.resetDrawn();
    m_lanes.paint(painter, size, m_state, m_selection, [&](QPainter& p) {
        const QRect timeArea(TimelineRenderer::kLabelWidth, TimelineRenderer::kRulerHeight, timeAreaWidth(),
                             TimelineRenderer::tracksAreaHeight(size));
        m_crossLinks.paint(p, timeArea, m_selection.slice, [&](TraceSlice end, bool* inside) {
            return m_lanes.anchorOf(end, size, m_state, m_selection, inside);
        });
    });
    m_lanes.paintShadedRanges(painter, size, m_state.scale);
    paintLeftOut(painter, size);
    if (!m_lanes.empty()) {
        const TimeNs origin = trace()->startTime() + primaryOffset(); // the ruler's ticks count from it
        m_range.paint(painter, size, m_state.scale, origin, m_state.cursorX, palette());
        m_marks.paint(painter, marksArea(), TimelineRenderer::kRulerHeight,
                      [this](TimeNs t) { return viewportXOf(t); });
    }
}

void TimelineWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(viewport());
    paintFrame(painter);
}

bool TimelineWidget::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::Resize) {
        // The viewport also changes size when a scroll bar appears, without a resize of
        // this widget: keep the visible time range either way.
        const int oldWidth = TimelineRenderer::timeAreaWidth(static_cast<QResizeEvent*>(event)->oldSize());
        if (!m_lanes.empty() && oldWidth > 1)
            applyScale(TimeScale::fit(m_state.scale.viewStart(), m_state.scale.viewEnd(oldWidth), timeAreaWidth()));
        else if (!m_lanes.empty())
            fitAll();
        else
            updateScrollBars();
    }
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        showToolTip(help->pos(), help->globalPos());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void TimelineWidget::wheelEvent(QWheelEvent* event)
{
    if (!m_input.wheel(event))
        QAbstractScrollArea::wheelEvent(event);
}

void TimelineWidget::mousePressEvent(QMouseEvent* event)
{
    if (!m_input.press(event))
        QAbstractScrollArea::mousePressEvent(event);
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) { m_input.move(event); }

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) { m_input.release(event); }

void TimelineWidget::leaveEvent(QEvent* event)
{
    m_input.leave();
    QAbstractScrollArea::leaveEvent(event);
}

void TimelineWidget::keyPressEvent(QKeyEvent* event)
{
    if (!m_input.key(event))
        QAbstractScrollArea::keyPressEvent(event);
}

void TimelineWidget::contextMenuEvent(QContextMenuEvent* event)
{
    if (!TimelineContextMenu::exec(*this, hitAt(event->pos()), event->pos(), event->globalPos()))
        QAbstractScrollArea::contextMenuEvent(event);
}

QString TimelineWidget::toolTipTextAt(const QPoint& pos) const
{
    const int mark =
        m_marks.markAt(pos, marksArea(), TimelineRenderer::kRulerHeight, [this](TimeNs t) { return viewportXOf(t); });
    if (mark >= 0)
        return QString::fromStdString(m_marks.marks()[std::size_t(mark)].note).toHtmlEscaped();
    return TimelineToolTip::textAt(m_lanes, hitAt(pos), pos, viewport()->size(), m_state, m_selection);
}

void TimelineWidget::showToolTip(const QPoint& pos, const QPoint& globalPos)
{
    const QString text = toolTipTextAt(pos);
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(globalPos, text, viewport());
}

// Range selection (TimelineRangeSelection), in the primary trace's time.

TimeExtent TimelineWidget::selectedRange() const
{
    return {m_range.start() - primaryOffset(), m_range.end() - primaryOffset()};
}

TimeExtent TimelineWidget::focusRange() const
{
    if (m_range.active())
        return selectedRange();
    const TimeScale scale = timeScale();
    return {scale.viewStart(), scale.viewEnd(timeAreaWidth())};
}

void TimelineWidget::setSelectedRange(TimeNs start, TimeNs end)
{
    if (end < start)
        std::swap(start, end);
    if (m_lanes.empty() || end == start)
        return clearSelectedRange();
    m_range.set(start + primaryOffset(), end + primaryOffset());
    viewport()->update();
    Q_EMIT rangeSelected(start, end);
}

void TimelineWidget::clearSelectedRange()
{
    if (!m_range.clear())
        return;
    viewport()->update();
    Q_EMIT rangeCleared();
}

void TimelineWidget::zoomToSelectedRange()
{
    if (m_range.active())
        setAxisRange(m_range.start(), m_range.end());
}

void TimelineWidget::finishRangeDrag()
{
    viewport()->update();
    if (m_range.finishDrag(m_state.scale.nsPerPixel()))
        Q_EMIT rangeSelected(m_range.start() - primaryOffset(), m_range.end() - primaryOffset());
    else
        Q_EMIT rangeCleared();
}

// Highlights and toggles (TimelineHighlightSet per trace, CrossTraceLinks).

void TimelineWidget::setShowAllFlows(bool show)
{
    m_state.allFlowsInView = show;
    viewport()->update();
}

void TimelineWidget::setFlowCategoryVisible(StringId category, bool visible)
{
    if (m_lanes.empty())
        return;
    const std::string_view name = trace()->str(category);
    for (TimelineLane& lane : m_lanes) {
        for (const FlowCategoryStats& stats : lane.source.trace->flowStats()) {
            if (lane.source.trace->str(stats.category) == name)
                lane.highlights.setFlowCategoryHidden(stats.category, !visible);
        }
    }
    viewport()->update();
}

void TimelineWidget::setHighlightedNames(std::vector<bool> names)
{
    for (std::uint32_t i = 0; i < m_lanes.size(); ++i) {
        if (i != m_selection.current)
            m_lanes[i].highlights.setNames({});
    }
    setHighlightedNames(m_selection.current, std::move(names));
}

void TimelineWidget::setHighlightedNames(std::uint32_t trace, std::vector<bool> names)
{
    if (trace >= m_lanes.size())
        return;
    m_lanes[trace].highlights.setNames(std::move(names));
    viewport()->update();
}

void TimelineWidget::clearHighlights()
{
    for (TimelineLane& lane : m_lanes)
        lane.highlights.clear();
    viewport()->update();
}

void TimelineWidget::setSearchSliceMatches(const std::vector<SliceId>& slices)
{
    if (m_selection.current >= m_lanes.size())
        return;
    m_lanes[m_selection.current].highlights.setSlices(slices);
    viewport()->update();
}

void TimelineWidget::setMarkedSlices(std::uint32_t trace, std::vector<SliceId> slices)
{
    if (trace >= m_lanes.size())
        return;
    m_lanes[trace].highlights.setMarked(std::move(slices));
    viewport()->update();
}

void TimelineWidget::setShadedRanges(std::uint32_t trace, std::vector<TimeExtent> ranges)
{
    for (TimelineLane& lane : m_lanes)
        lane.highlights.setShadedRanges({});
    if (trace < m_lanes.size())
        m_lanes[trace].highlights.setShadedRanges(std::move(ranges));
    viewport()->update();
}

const std::vector<TimeExtent>& TimelineWidget::shadedRanges(std::uint32_t trace) const
{
    static const std::vector<TimeExtent> none;
    return trace < m_lanes.size() ? m_lanes[trace].highlights.shadedRanges() : none;
}

void TimelineWidget::setCrossLinks(std::vector<CrossTraceLink> links)
{
    m_crossLinks.setLinks(std::move(links));
    viewport()->update();
}

void TimelineWidget::setShowAllCrossLinks(bool show)
{
    m_crossLinks.setShowAll(show);
    viewport()->update();
}

const std::vector<SliceId>& TimelineWidget::highlightedSlices() const { return highlightedSlices(0); }

const std::vector<SliceId>& TimelineWidget::highlightedSlices(std::uint32_t trace) const
{
    static const std::vector<SliceId> none;
    return trace < m_lanes.size() ? m_lanes[trace].highlights.slices() : none;
}

void TimelineWidget::setHighlightedSlices(std::vector<SliceId> slices) { setHighlightedSlices(0, std::move(slices)); }

void TimelineWidget::setHighlightedSlices(std::uint32_t trace, std::vector<SliceId> slices)
{
    std::vector<std::vector<SliceId>> byTrace(std::min<std::size_t>(trace, m_lanes.size()) + 1); // others: none
    byTrace.back() = std::move(slices); // past the last trace: ignored
    setHighlightedSlicesByTrace(std::move(byTrace));
}

void TimelineWidget::setHighlightedSlicesByTrace(std::vector<std::vector<SliceId>> byTrace)
{
    for (std::uint32_t i = 0; i < m_lanes.size(); ++i)
        m_lanes[i].highlights.setSlices(i < byTrace.size() ? std::move(byTrace[i]) : std::vector<SliceId>{});
    viewport()->update();
}

facts::StepRules TimelineWidget::stepRules(std::uint32_t trace) const { return m_lanes.stepRules(trace); }

void TimelineWidget::setStepRules(std::uint32_t trace, facts::StepRules rules)
{
    for (const std::uint32_t changed : m_lanes.setStepRules(trace, rules))
        Q_EMIT stepRulesChanged(changed, rules);
}

// The track layout of the primary trace (TimelineTrackEditor) and the GPU metric tracks of
// every trace (TimelineGpuReports).

bool TimelineWidget::isPythonLaneFolded(std::uint32_t track) const
{
    return TimelineTrackEditor::isPythonLaneFolded(trackLayout(), track);
}

void TimelineWidget::setTrackPinned(std::uint32_t track, bool pinned)
{
    if (TimelineTrackEditor(m_lanes, 0).setTrackPinned(track, pinned))
        rebuildLayout();
}

void TimelineWidget::setGpuFirst(bool first)
{
    if (TimelineTrackEditor(m_lanes, 0).setGpuFirst(first))
        rebuildLayout();
}

void TimelineWidget::setPythonLaneFolded(std::uint32_t track, bool folded, bool remember)
{
    if (TimelineTrackEditor(m_lanes, 0).setPythonLaneFolded(track, folded, remember))
        rebuildLayout();
}

void TimelineWidget::setCounterTrackCollapsed(std::uint32_t counter, bool collapsed)
{
    if (TimelineTrackEditor(m_lanes, 0).setPlotTrackCollapsed(LayoutItem::Kind::Counter, kNoIndex, counter, collapsed))
        rebuildLayout();
}

void TimelineWidget::setMetricTrackCollapsed(std::uint32_t process, std::uint32_t metric, bool collapsed)
{
    if (TimelineTrackEditor(m_lanes, 0).setPlotTrackCollapsed(LayoutItem::Kind::Metric, process, metric, collapsed))
        rebuildLayout();
}

void TimelineWidget::togglePlotTrack(std::uint32_t trace, const TimelineHit& label)
{
    if (TimelineTrackEditor(m_lanes, trace).togglePlotTrack(label))
        rebuildLayout();
}

void TimelineWidget::moveGroup(std::uint32_t process, std::uint32_t before)
{
    if (TimelineTrackEditor(m_lanes, 0).moveGroup(process, before))
        rebuildLayout();
}

void TimelineWidget::resetTrackLayout()
{
    if (TimelineTrackEditor(m_lanes, 0).reset())
        rebuildLayout();
}

void TimelineWidget::setViewLayout(const LayoutOptions& options)
{
    if (TimelineTrackEditor(m_lanes, 0).applyView(options))
        rebuildLayout();
}

void TimelineWidget::setGpuReport(std::shared_ptr<const gpu::GpuReport> report)
{
    m_gpuReports.add(std::move(report));
    applyGpuMetricTracks();
}

void TimelineWidget::setGpuMetricTracksShown(bool shown)
{
    if (m_gpuReports.shown() == shown)
        return;
    m_gpuReports.setShown(shown);
    applyGpuMetricTracks();
}

void TimelineWidget::applyGpuMetricTracks()
{
    m_gpuReports.applyTo(m_lanes);
    rebuildLayout();
}

} // namespace ks
