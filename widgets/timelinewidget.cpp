#include "widgets/timelinewidget.h"

#include "core/gpu/gpureport.h"
#include "core/timeline/flowlinks.h"
#include "widgets/timelinelayoutsettings.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <utility>

namespace ks {

namespace {

// The horizontal scroll bar maps the trace extent onto this many steps (an int range
// cannot hold nanoseconds of a long trace at fine zoom).
constexpr int kScrollSteps = 1'000'000;
constexpr double kZoomStep = 1.25;
constexpr double kPanFraction = 0.15;
constexpr int kDragThreshold = 3;
constexpr int kMinRevealWidthPx = 8;

std::vector<TimelineTrace> only(std::shared_ptr<const Trace> trace)
{
    std::vector<TimelineTrace> traces;
    if (trace)
        traces.push_back({std::move(trace), 0, {}, {}});
    return traces;
}

} // namespace

TimelineWidget::TimelineWidget(QWidget* parent)
    : QAbstractScrollArea(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    horizontalScrollBar()->setRange(0, 0);
    m_emptyRenderer.setChrome(TimelineChrome::fromPalette(palette()));
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
        const TimelineChrome chrome = TimelineChrome::fromPalette(palette());
        m_emptyRenderer.setChrome(chrome);
        for (Lane& lane : m_lanes)
            lane.renderer->setChrome(chrome);
        viewport()->update();
    }
    QAbstractScrollArea::changeEvent(event);
}

std::shared_ptr<const Trace> TimelineWidget::trace() const
{
    return m_lanes.empty() ? nullptr : m_lanes[0].source.trace;
}

std::shared_ptr<const Trace> TimelineWidget::traceAt(std::uint32_t index) const
{
    return index < m_lanes.size() ? m_lanes[index].source.trace : nullptr;
}

TimeNs TimelineWidget::traceOffset(std::uint32_t index) const
{
    return index < m_lanes.size() ? m_lanes[index].source.offset : 0;
}

QString TimelineWidget::traceTitle(std::uint32_t index) const
{
    return index < m_lanes.size() ? m_lanes[index].source.title : QString();
}

TimeNs TimelineWidget::toTraceTime(std::uint32_t index, TimeNs primaryTime) const
{
    return primaryTime + primaryOffset() - traceOffset(index);
}

TimeNs TimelineWidget::toPrimaryTime(std::uint32_t index, TimeNs traceTime) const
{
    return traceTime + traceOffset(index) - primaryOffset();
}

const TrackLayout& TimelineWidget::trackLayout() const { return m_lanes.empty() ? m_emptyLayout : m_lanes[0].layout; }

const TimelineRenderer& TimelineWidget::renderer() const { return renderer(0); }

const TimelineRenderer& TimelineWidget::renderer(std::uint32_t trace) const
{
    return trace < m_lanes.size() ? *m_lanes[trace].renderer : m_emptyRenderer;
}

void TimelineWidget::setTrace(std::shared_ptr<const Trace> trace) { setTraces(only(std::move(trace))); }

void TimelineWidget::setTraces(std::vector<TimelineTrace> traces)
{
    m_gpuReportCarried = false;
    m_showsNewerSnapshot = false;
    // Reports of traces no longer shown would never be drawn again.
    std::erase_if(m_gpuReports, [&](const auto& report) {
        return std::none_of(traces.begin(), traces.end(),
                            [&](const TimelineTrace& shown) { return shown.trace == report->trace; });
    });
    showTraces(std::move(traces));
}

void TimelineWidget::setNewerSnapshot(std::shared_ptr<const Trace> trace)
{
    m_gpuReportCarried = m_lanes.size() == 1 && gpuReportOf(m_lanes[0]);
    if (m_gpuReportCarried)
        m_gpuReports = {gpuReportOf(m_lanes[0])};
    m_showsNewerSnapshot = true;
    const SnapshotView view = snapshotView();
    std::vector<TimelineTrace> traces = only(std::move(trace));
    if (!m_lanes.empty())
        traces.front().stepRules = m_lanes.front().source.stepRules; // the same recording's
    showTraces(std::move(traces));
    restoreSnapshotView(view);
}

void TimelineWidget::showTraces(std::vector<TimelineTrace> traces)
{
    m_lanes.clear();
    for (TimelineTrace& source : traces) {
        if (!source.trace)
            continue;
        Lane lane;
        lane.renderer = std::make_unique<TimelineRenderer>();
        lane.renderer->setTrace(source.trace);
        lane.renderer->setChrome(m_emptyRenderer.chrome());
        lane.collapsed.assign(source.trace->processes().size(), false);
        lane.content = contentExtent(*source.trace);
        lane.layout.setShownProcesses(source.processes);
        if (traces.size() == 1) {
            LayoutOptions options;
            TimelineLayoutSettings::load(*source.trace, options);
            lane.layout.setOptions(std::move(options));
        }
        lane.source = std::move(source);
        m_lanes.push_back(std::move(lane));
    }
    if (m_lanes.size() > 1) {
        // Several traces: host processes start collapsed, so every trace's GPU streams
        // fit on screen together; a click (or revealing a slice) expands one.
        for (Lane& lane : m_lanes) {
            const auto& processes = lane.source.trace->processes();
            for (std::size_t p = 0; p < processes.size(); ++p)
                lane.collapsed[p] = !processes[p].isDevice;
        }
    }
    m_traceCollapsed.assign(m_lanes.size(), false);
    m_crossLinks.clear();
    m_history.clear();
    m_selection = {};
    m_selectedInstant = kNoIndex;
    m_hovered = {};
    m_current = 0;
    m_state.scrollY = 0;
    m_range = {};
    m_rangeDragging = false;
    m_groupDrag = kNoIndex;
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
    for (std::size_t i = 0; i < m_lanes.size() && i < offsets.size(); ++i)
        m_lanes[i].source.offset = offsets[i];
    // The primary trace keeps its place on screen; the others move.
    applyScale(TimeScale(m_state.scale.viewStart() + primaryOffset() - oldPrimary, m_state.scale.nsPerPixel()));
}

TimeExtent TimelineWidget::axisExtent(bool contentOnly) const
{
    TimeExtent axis;
    for (std::size_t i = 0; i < m_lanes.size(); ++i) {
        const Lane& lane = m_lanes[i];
        const TimeExtent own =
            contentOnly ? lane.content : TimeExtent{lane.source.trace->startTime(), lane.source.trace->endTime()};
        const TimeExtent shifted{own.start + lane.source.offset, own.end + lane.source.offset};
        axis = i == 0 ? shifted : TimeExtent{std::min(axis.start, shifted.start), std::max(axis.end, shifted.end)};
    }
    return axis;
}

TimeExtent TimelineWidget::navigableExtent() const
{
    const TimeExtent content = axisExtent(true);
    const TimeNs margin = std::max<TimeNs>((content.end - content.start) / 50, 1000);
    return {content.start - margin, content.end + margin};
}

TimeScale TimelineWidget::timeScale() const
{
    return TimeScale(m_state.scale.viewStart() - primaryOffset(), m_state.scale.nsPerPixel());
}

TimelineViewState TimelineWidget::laneState(std::uint32_t trace) const
{
    const Lane& lane = m_lanes[trace];
    TimelineViewState state = m_state;
    state.scale = TimeScale(m_state.scale.viewStart() - lane.source.offset, m_state.scale.nsPerPixel());
    state.scrollY = m_state.scrollY - m_stack.bodyTop(trace);
    state.selected = m_selection.trace == trace ? m_selection.slice : kNoSlice;
    state.selectedInstant = m_selection.trace == trace ? m_selectedInstant : kNoIndex;
    state.hovered = m_hovered.trace == trace ? m_hovered.slice : kNoSlice;
    state.highlightedNames = lane.highlightedNames.empty() ? nullptr : &lane.highlightedNames;
    state.hiddenFlowCategories = lane.hiddenFlowCategories.empty() ? nullptr : &lane.hiddenFlowCategories;
    state.markedSlices = lane.markedSlices.empty() ? nullptr : &lane.markedSlices;
    state.highlightedSlices = lane.highlightedSlices.empty() ? nullptr : &lane.highlightedSlices;
    return state;
}

int TimelineWidget::timeAreaWidth() const { return TimelineRenderer::timeAreaWidth(viewport()->size()); }

double TimelineWidget::viewportXOf(TimeNs t) const
{
    return TimelineRenderer::kLabelWidth + m_state.scale.timeToX(t + primaryOffset());
}

double TimelineWidget::viewportXOf(std::uint32_t trace, TimeNs t) const
{
    return TimelineRenderer::kLabelWidth + m_state.scale.timeToX(t + traceOffset(trace));
}

TimeNs TimelineWidget::timeAtViewportX(double x) const
{
    return m_state.scale.xToTime(x - TimelineRenderer::kLabelWidth) - primaryOffset();
}

int TimelineWidget::viewportYOfRow(std::uint32_t row) const { return m_lanes.empty() ? -1 : viewportYOfRow(0, row); }

int TimelineWidget::viewportYOfRow(std::uint32_t trace, std::uint32_t row) const
{
    if (trace >= m_lanes.size() || m_stack.isCollapsed(trace))
        return -1;
    const int top = m_lanes[trace].layout.rowTop(row);
    if (top < 0)
        return -1;
    return m_stack.bodyTop(trace) + top - m_state.scrollY + TimelineRenderer::kRulerHeight
        + m_lanes[trace].layout.metrics().rowHeight / 2;
}

bool TimelineWidget::isProcessCollapsed(std::uint32_t process) const { return isProcessCollapsed(0, process); }

bool TimelineWidget::isProcessCollapsed(std::uint32_t trace, std::uint32_t process) const
{
    return trace < m_lanes.size() && process < m_lanes[trace].collapsed.size() && m_lanes[trace].collapsed[process];
}

bool TimelineWidget::isTraceCollapsed(std::uint32_t trace) const
{
    return trace < m_traceCollapsed.size() && m_traceCollapsed[trace];
}

void TimelineWidget::renderTo(QPainter& painter) { paintFrame(painter); }

void TimelineWidget::rebuildLayout()
{
    std::vector<int> heights;
    for (Lane& lane : m_lanes) {
        lane.layout.build(*lane.source.trace, lane.collapsed);
        heights.push_back(lane.layout.totalHeight());
    }
    m_stack.build(heights, m_traceCollapsed);
    updateScrollBars();
    viewport()->update();
}

void TimelineWidget::updateScrollBars()
{
    m_updatingScrollBars = true;
    const int tracksHeight = TimelineRenderer::tracksAreaHeight(viewport()->size());
    QScrollBar* v = verticalScrollBar();
    v->setRange(0, std::max(0, m_stack.totalHeight() - tracksHeight));
    v->setPageStep(std::max(1, tracksHeight));
    v->setSingleStep(trackLayout().metrics().rowHeight);
    m_state.scrollY = std::clamp(m_state.scrollY, 0, v->maximum());
    v->setValue(m_state.scrollY);

    QScrollBar* h = horizontalScrollBar();
    if (!m_lanes.empty() && axisEnd() > axisStart()) {
        const double span = double(axisEnd() - axisStart());
        const double visible = m_state.scale.nsPerPixel() * timeAreaWidth();
        const int page = std::clamp(int(visible / span * kScrollSteps), 1, kScrollSteps);
        h->setRange(0, kScrollSteps - page);
        h->setPageStep(page);
        h->setSingleStep(std::max(1, page / 10));
        h->setValue(int(double(m_state.scale.viewStart() - axisStart()) / span * kScrollSteps));
    } else {
        h->setRange(0, 0);
    }
    m_updatingScrollBars = false;
}

void TimelineWidget::emitVisibleRange()
{
    const TimeScale scale = timeScale();
    Q_EMIT visibleRangeChanged(scale.viewStart(), scale.viewEnd(timeAreaWidth()));
}

void TimelineWidget::scrollContentsBy(int, int)
{
    if (m_updatingScrollBars)
        return;
    m_state.scrollY = verticalScrollBar()->value();
    if (!m_lanes.empty() && axisEnd() > axisStart()) {
        const double span = double(axisEnd() - axisStart());
        const TimeNs start =
            axisStart() + TimeNs(std::llround(double(horizontalScrollBar()->value()) / kScrollSteps * span));
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
    const TimeExtent content = axisExtent(true);
    setAxisRange(content.start, content.end);
}

void TimelineWidget::fitSelection()
{
    if (!m_selection.valid())
        return;
    const Trace& trace = *m_lanes[m_selection.trace].source.trace;
    const TimeNs start = trace.slices().start[m_selection.slice] + traceOffset(m_selection.trace);
    const TimeNs dur = std::max<TimeNs>(trace.slices().duration[m_selection.slice], 1);
    // A margin on both sides keeps the neighbours in sight.
    setAxisRange(start - dur / 10, start + dur + dur / 10);
}

void TimelineWidget::select(TraceSlice slice, bool recordHistory)
{
    m_selection = slice;
    m_selectedInstant = kNoIndex;
    if (recordHistory)
        m_history.visit(slice);
    if (slice.valid() && slice.trace != m_current) {
        m_current = slice.trace;
        Q_EMIT currentTraceChanged(m_current, traceAt(m_current));
    }
    viewport()->update();
    Q_EMIT selectionChanged(slice.slice);
    Q_EMIT traceSelectionChanged(slice);
    Q_EMIT historyChanged();
}

void TimelineWidget::clearSelection()
{
    if (m_selection.valid() || m_selectedInstant != kNoIndex)
        select({m_current, kNoSlice}, false);
}

void TimelineWidget::ensureVisible(TraceSlice target)
{
    const SliceTable& slices = m_lanes[target.trace].source.trace->slices();
    const TimeNs offset = traceOffset(target.trace);
    const int width = timeAreaWidth();
    TimeScale scale = m_state.scale;
    const TimeNs start = slices.start[target.slice] + offset;
    const TimeNs end = slices.end(target.slice) + offset;
    const double widthPx = double(end - start) / scale.nsPerPixel();
    if (widthPx > width * 0.9) {
        fitSelection();
        scale = m_state.scale;
    } else if (widthPx < kMinRevealWidthPx) {
        // Zoom in (never out) just enough that the slice can be seen and clicked.
        const double nsPerPixel = std::max(double(end - start), 1.0) / kMinRevealWidthPx;
        scale = TimeScale(scale.viewStart(), std::min(scale.nsPerPixel(), nsPerPixel));
    }
    const double x0 = scale.timeToX(start);
    const double x1 = scale.timeToX(end);
    if (x0 < 0 || x1 > width) {
        const TimeNs centre = start + (end - start) / 2;
        scale = TimeScale(centre - TimeNs(std::llround(scale.nsPerPixel() * width / 2)), scale.nsPerPixel());
    }
    applyScale(scale);

    const TrackLayout& layout = m_lanes[target.trace].layout;
    const int rowTop = layout.rowTop(slices.row[target.slice]);
    const int top = rowTop < 0 ? -1 : m_stack.bodyTop(target.trace) + rowTop;
    const int tracksHeight = TimelineRenderer::tracksAreaHeight(viewport()->size());
    const int rowHeight = layout.metrics().rowHeight;
    if (top >= 0 && (top < m_state.scrollY || top + rowHeight > m_state.scrollY + tracksHeight)) {
        verticalScrollBar()->setValue(top - tracksHeight / 2);
        m_state.scrollY = verticalScrollBar()->value();
    }
    viewport()->update();
}

void TimelineWidget::revealSlice(SliceId slice) { reveal({m_current, slice}, true); }

void TimelineWidget::revealTraceSlice(TraceSlice slice) { reveal(slice, true); }

void TimelineWidget::reveal(TraceSlice target, bool recordHistory)
{
    if (target.trace >= m_lanes.size() || target.slice >= m_lanes[target.trace].source.trace->slices().size())
        return;
    const Trace& trace = *m_lanes[target.trace].source.trace;
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
    if (!m_selection.valid())
        return;
    const Lane& lane = m_lanes[m_selection.trace];
    const Trace& trace = *lane.source.trace;
    for (const FlowLink& link : flowLinksOf(trace, m_selection.slice)) {
        const StringId category = trace.flows()[link.flow].category;
        const auto& hidden = lane.hiddenFlowCategories;
        if (link.incoming == incoming && !(category < hidden.size() && hidden[category])) {
            revealTraceSlice({m_selection.trace, link.other});
            return;
        }
    }
    for (const CrossTraceLink& link : m_crossLinks) {
        if ((incoming ? link.to : link.from) == m_selection) {
            revealTraceSlice(incoming ? link.from : link.to);
            return;
        }
    }
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
    if (trace >= m_lanes.size())
        return;
    std::vector<bool>& flags = m_lanes[trace].collapsed;
    if (process >= flags.size() || flags[process] == collapsed)
        return;
    flags[process] = collapsed;
    rebuildLayout();
}

void TimelineWidget::setTraceCollapsed(std::uint32_t trace, bool collapsed)
{
    if (trace >= m_traceCollapsed.size() || m_traceCollapsed[trace] == collapsed)
        return;
    m_traceCollapsed[trace] = collapsed;
    rebuildLayout();
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

// Wheel: over the tracks it zooms at the cursor (like Tracy and hotspot); over the
// label column, or with Shift, it scrolls vertically; a horizontal wheel pans; Ctrl
// always zooms.
void TimelineWidget::wheelEvent(QWheelEvent* event)
{
    const QPoint delta = event->angleDelta();
    const QPointF pos = event->position();
    const bool zoom = event->modifiers() & Qt::ControlModifier
        || (!(event->modifiers() & Qt::ShiftModifier) && pos.x() >= TimelineRenderer::kLabelWidth);
    if (delta.x() != 0 && delta.y() == 0) {
        panBy(-delta.x() / 120.0 * timeAreaWidth() * 0.1);
    } else if (zoom && delta.y() != 0) {
        zoomAt(pos.x(), std::pow(kZoomStep, -delta.y() / 120.0));
    } else {
        QAbstractScrollArea::wheelEvent(event);
        return;
    }
    event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event)
{
    if (startsRangeDrag(event)) {
        m_rangeDragging = true;
        m_rangeAnchor = m_state.scale.xToTime(event->position().x() - TimelineRenderer::kLabelWidth);
        event->accept();
        return;
    }
    if (event->button() == Qt::LeftButton) {
        m_pressPos = event->position().toPoint();
        m_lastDragPos = m_pressPos;
        m_dragging = false;
        const LaneHit at = hitAt(m_pressPos);
        const bool header = at.trace == 0 && at.hit.kind == TimelineHit::Kind::ProcessHeader
            && at.hit.process != kPinnedGroup && at.hit.process != kNoIndex;
        m_groupDrag = header && m_pressPos.x() < TimelineRenderer::kLabelWidth ? at.hit.process : kNoIndex;
    }
    QAbstractScrollArea::mousePressEvent(event);
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    if (m_rangeDragging) {
        dragRangeTo(pos.x());
    } else if (event->buttons() & Qt::LeftButton) {
        if (!m_dragging && (pos - m_pressPos).manhattanLength() > kDragThreshold)
            m_dragging = true;
        if (m_dragging && m_groupDrag != kNoIndex) {
            viewport()->setCursor(Qt::ClosedHandCursor);
        } else if (m_dragging) {
            const QPoint d = pos - m_lastDragPos;
            m_lastDragPos = pos;
            if (d.x() != 0)
                panBy(-d.x());
            if (d.y() != 0)
                verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
        }
    }
    m_state.cursorX = pos.x() >= TimelineRenderer::kLabelWidth ? pos.x() - TimelineRenderer::kLabelWidth : -1;
    if (!m_dragging) {
        const LaneHit at = hitAt(pos);
        m_hovered = at.hit.kind == TimelineHit::Kind::Slice ? TraceSlice{at.trace, at.hit.slice} : TraceSlice{};
    }
    viewport()->update();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_rangeDragging && event->button() == Qt::LeftButton) {
        dragRangeTo(event->position().x());
        finishRangeDrag();
        return;
    }
    if (event->button() == Qt::LeftButton && m_dragging && m_groupDrag != kNoIndex) {
        // Dropped on a group: the dragged one goes before it.
        const LaneHit at = hitAt(event->position().toPoint());
        const int contentY = int(event->position().y()) - TimelineRenderer::kRulerHeight + m_state.scrollY;
        const LayoutItem* item = at.trace == 0 ? trackLayout().itemAt(contentY) : nullptr;
        viewport()->unsetCursor();
        if (item && item->group != kPinnedGroup)
            moveGroup(std::exchange(m_groupDrag, kNoIndex), item->group);
    }
    m_groupDrag = kNoIndex;
    if (event->button() != Qt::LeftButton || m_dragging || m_lanes.empty()) {
        m_dragging = false;
        return;
    }
    const LaneHit at = hitAt(event->position().toPoint());
    if (at.header) {
        setTraceCollapsed(at.trace, !isTraceCollapsed(at.trace));
        return;
    }
    const TimelineHit& hit = at.hit;
    switch (hit.kind) {
    case TimelineHit::Kind::ProcessHeader:
        setProcessCollapsed(at.trace, hit.process, !isProcessCollapsed(at.trace, hit.process));
        break;
    case TimelineHit::Kind::Slice: select({at.trace, hit.slice}, true); break;
    case TimelineHit::Kind::Instant: selectInstant(at.trace, hit.instant); break;
    case TimelineHit::Kind::Folded: {
        // Too small to pick one: zoom in on the run instead.
        const SliceTable& slices = m_lanes[at.trace].source.trace->slices();
        const SliceId last = hit.slice + hit.count - 1;
        const TimeNs offset = traceOffset(at.trace);
        setAxisRange(slices.start[hit.slice] + offset, slices.end(last) + offset);
        break;
    }
    case TimelineHit::Kind::Label:
        if (hit.item == LayoutItem::Kind::Counter || hit.item == LayoutItem::Kind::Metric)
            togglePlotTrack(at.trace, hit);
        else
            clearSelection();
        break;
    case TimelineHit::Kind::Counter:
    case TimelineHit::Kind::Metric:
        clearSelection();
        if (at.trace == 0)
            Q_EMIT plotTimeClicked(timeAtViewportX(event->position().x()));
        break;
    case TimelineHit::Kind::None: clearSelection(); break;
    }
}

void TimelineWidget::leaveEvent(QEvent* event)
{
    m_state.cursorX = -1;
    m_hovered = {};
    viewport()->update();
    QAbstractScrollArea::leaveEvent(event);
}

// Keys as in Perfetto and chrome://tracing.
void TimelineWidget::keyPressEvent(QKeyEvent* event)
{
    const double centre = m_state.cursorX >= 0 ? TimelineRenderer::kLabelWidth + m_state.cursorX
                                               : TimelineRenderer::kLabelWidth + timeAreaWidth() / 2.0;
    const bool alt = event->modifiers() & Qt::AltModifier;
    switch (event->key()) {
    case Qt::Key_W: zoomAt(centre, 1.0 / kZoomStep); break;
    case Qt::Key_S: zoomAt(centre, kZoomStep); break;
    case Qt::Key_A: panBy(-timeAreaWidth() * kPanFraction); break;
    case Qt::Key_D: panBy(timeAreaWidth() * kPanFraction); break;
    case Qt::Key_F:
        if (m_range.active)
            zoomToSelectedRange();
        else
            fitSelection();
        break;
    case Qt::Key_0:
    case Qt::Key_Home: fitAll(); break;
    case Qt::Key_Escape:
        if (m_range.active)
            clearSelectedRange();
        else
            clearSelection();
        break;
    case Qt::Key_BracketLeft: followIncomingFlow(); break;
    case Qt::Key_BracketRight: followOutgoingFlow(); break;
    case Qt::Key_Left:
        if (!alt)
            return QAbstractScrollArea::keyPressEvent(event);
        goBack();
        break;
    case Qt::Key_Right:
        if (!alt)
            return QAbstractScrollArea::keyPressEvent(event);
        goForward();
        break;
    default: QAbstractScrollArea::keyPressEvent(event); return;
    }
    event->accept();
}

} // namespace ks
