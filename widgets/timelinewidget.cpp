#include "widgets/timelinewidget.h"

#include "core/timeline/flowlinks.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

// The horizontal scroll bar maps the trace extent onto this many steps (an int range
// cannot hold nanoseconds of a long trace at fine zoom).
constexpr int kScrollSteps = 1'000'000;
constexpr double kZoomStep = 1.25;
constexpr double kPanFraction = 0.15;
constexpr int kDragThreshold = 3;
constexpr int kMinRevealWidthPx = 8;

QString qstr(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
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
    setMinimumSize(400, 200);
}

void TimelineWidget::setTrace(std::shared_ptr<const Trace> trace)
{
    m_trace = std::move(trace);
    m_renderer.setTrace(m_trace);
    m_collapsed.assign(m_trace ? m_trace->processes().size() : 0, false);
    m_highlightedNames.clear();
    m_highlightedSlices.clear();
    m_hiddenFlowCategories.clear();
    m_history.clear();
    m_state.selected = kNoSlice;
    m_state.hovered = kNoSlice;
    m_state.highlightedNames = nullptr;
    m_state.highlightedSlices = nullptr;
    m_state.hiddenFlowCategories = nullptr;
    m_state.scrollY = 0;
    rebuildLayout();
    fitAll();
    Q_EMIT traceChanged(m_trace);
    Q_EMIT selectionChanged(kNoSlice);
    Q_EMIT historyChanged();
}

int TimelineWidget::timeAreaWidth() const
{
    return TimelineRenderer::timeAreaWidth(viewport()->size());
}

double TimelineWidget::viewportXOf(TimeNs t) const
{
    return TimelineRenderer::kLabelWidth + m_state.scale.timeToX(t);
}

TimeNs TimelineWidget::timeAtViewportX(double x) const
{
    return m_state.scale.xToTime(x - TimelineRenderer::kLabelWidth);
}

int TimelineWidget::viewportYOfRow(std::uint32_t row) const
{
    const int top = m_layout.rowTop(row);
    if (top < 0)
        return -1;
    return top - m_state.scrollY + TimelineRenderer::kRulerHeight + m_layout.metrics().rowHeight / 2;
}

bool TimelineWidget::isProcessCollapsed(std::uint32_t process) const
{
    return process < m_collapsed.size() && m_collapsed[process];
}

void TimelineWidget::renderTo(QPainter& painter)
{
    m_renderer.paint(painter, viewport()->size(), m_layout, m_state);
}

void TimelineWidget::rebuildLayout()
{
    if (m_trace)
        m_layout.build(*m_trace, m_collapsed);
    else
        m_layout = TrackLayout();
    updateScrollBars();
    viewport()->update();
}

void TimelineWidget::updateScrollBars()
{
    m_updatingScrollBars = true;
    const int tracksHeight = TimelineRenderer::tracksAreaHeight(viewport()->size());
    QScrollBar* v = verticalScrollBar();
    v->setRange(0, std::max(0, m_layout.totalHeight() - tracksHeight));
    v->setPageStep(std::max(1, tracksHeight));
    v->setSingleStep(m_layout.metrics().rowHeight);
    m_state.scrollY = std::clamp(m_state.scrollY, 0, v->maximum());
    v->setValue(m_state.scrollY);

    QScrollBar* h = horizontalScrollBar();
    if (m_trace && m_trace->endTime() > m_trace->startTime()) {
        const double span = double(m_trace->endTime() - m_trace->startTime());
        const double visible = m_state.scale.nsPerPixel() * timeAreaWidth();
        const int page = std::clamp(int(visible / span * kScrollSteps), 1, kScrollSteps);
        h->setRange(0, kScrollSteps - page);
        h->setPageStep(page);
        h->setSingleStep(std::max(1, page / 10));
        h->setValue(int(double(m_state.scale.viewStart() - m_trace->startTime()) / span * kScrollSteps));
    } else {
        h->setRange(0, 0);
    }
    m_updatingScrollBars = false;
}

void TimelineWidget::scrollContentsBy(int, int)
{
    if (m_updatingScrollBars)
        return;
    m_state.scrollY = verticalScrollBar()->value();
    if (m_trace && m_trace->endTime() > m_trace->startTime()) {
        const double span = double(m_trace->endTime() - m_trace->startTime());
        const TimeNs start = m_trace->startTime()
            + TimeNs(std::llround(double(horizontalScrollBar()->value()) / kScrollSteps * span));
        if (start != m_state.scale.viewStart()) {
            m_state.scale = TimeScale(start, m_state.scale.nsPerPixel());
            Q_EMIT visibleRangeChanged(start, m_state.scale.viewEnd(timeAreaWidth()));
        }
    }
    viewport()->update();
}

void TimelineWidget::applyScale(const TimeScale& scale)
{
    if (m_trace)
        m_state.scale = scale.clampedTo(m_trace->startTime(), m_trace->endTime(), timeAreaWidth());
    else
        m_state.scale = scale;
    updateScrollBars();
    viewport()->update();
    Q_EMIT visibleRangeChanged(m_state.scale.viewStart(), m_state.scale.viewEnd(timeAreaWidth()));
}

void TimelineWidget::setTimeScale(const TimeScale& scale)
{
    applyScale(scale);
}

void TimelineWidget::setVisibleRange(TimeNs start, TimeNs end)
{
    applyScale(TimeScale::fit(start, end, timeAreaWidth()));
}

void TimelineWidget::zoomAt(double viewportX, double factor)
{
    const double x = std::clamp(viewportX - TimelineRenderer::kLabelWidth, 0.0, double(timeAreaWidth()));
    applyScale(m_state.scale.zoomedAt(x, factor));
}

void TimelineWidget::panBy(double pixels)
{
    applyScale(m_state.scale.pannedBy(pixels));
}

void TimelineWidget::fitAll()
{
    if (m_trace)
        setVisibleRange(m_trace->startTime(), m_trace->endTime());
}

void TimelineWidget::fitSelection()
{
    const SliceId s = m_state.selected;
    if (!m_trace || s == kNoSlice)
        return;
    const TimeNs start = m_trace->slices().start[s];
    const TimeNs dur = std::max<TimeNs>(m_trace->slices().duration[s], 1);
    // A margin on both sides keeps the neighbours in sight.
    setVisibleRange(start - dur / 10, start + dur + dur / 10);
}

void TimelineWidget::select(SliceId slice, bool recordHistory)
{
    m_state.selected = slice;
    if (recordHistory)
        m_history.visit(slice);
    viewport()->update();
    Q_EMIT selectionChanged(slice);
    Q_EMIT historyChanged();
}

void TimelineWidget::clearSelection()
{
    if (m_state.selected != kNoSlice)
        select(kNoSlice, false);
}

void TimelineWidget::ensureVisible(SliceId slice)
{
    const SliceTable& slices = m_trace->slices();
    const int width = timeAreaWidth();
    TimeScale scale = m_state.scale;
    const TimeNs start = slices.start[slice];
    const TimeNs end = slices.end(slice);
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

    const int top = m_layout.rowTop(slices.row[slice]);
    const int tracksHeight = TimelineRenderer::tracksAreaHeight(viewport()->size());
    const int rowHeight = m_layout.metrics().rowHeight;
    if (top >= 0 && (top < m_state.scrollY || top + rowHeight > m_state.scrollY + tracksHeight)) {
        verticalScrollBar()->setValue(top - tracksHeight / 2);
        m_state.scrollY = verticalScrollBar()->value();
    }
    viewport()->update();
}

void TimelineWidget::revealSlice(SliceId slice)
{
    reveal(slice, true);
}

void TimelineWidget::reveal(SliceId slice, bool recordHistory)
{
    if (!m_trace || slice >= m_trace->slices().size())
        return;
    const std::uint32_t process = m_trace->tracks()[m_trace->trackOf(slice)].process;
    if (isProcessCollapsed(process))
        setProcessCollapsed(process, false);
    select(slice, recordHistory);
    ensureVisible(slice);
}

void TimelineWidget::followFlow(bool incoming)
{
    if (!m_trace || m_state.selected == kNoSlice)
        return;
    for (const FlowLink& link : flowLinksOf(*m_trace, m_state.selected)) {
        const StringId category = m_trace->flows()[link.flow].category;
        const bool hidden = category < m_hiddenFlowCategories.size() && m_hiddenFlowCategories[category];
        if (link.incoming == incoming && !hidden) {
            revealSlice(link.other);
            return;
        }
    }
}

void TimelineWidget::followIncomingFlow()
{
    followFlow(true);
}

void TimelineWidget::followOutgoingFlow()
{
    followFlow(false);
}

void TimelineWidget::goBack()
{
    reveal(m_history.back(), false);
}

void TimelineWidget::goForward()
{
    reveal(m_history.forward(), false);
}

void TimelineWidget::setProcessCollapsed(std::uint32_t process, bool collapsed)
{
    if (process >= m_collapsed.size() || m_collapsed[process] == collapsed)
        return;
    m_collapsed[process] = collapsed;
    rebuildLayout();
}

void TimelineWidget::setShowAllFlows(bool show)
{
    m_state.allFlowsInView = show;
    viewport()->update();
}

void TimelineWidget::setFlowCategoryVisible(StringId category, bool visible)
{
    if (category >= m_hiddenFlowCategories.size())
        m_hiddenFlowCategories.resize(category + 1, false);
    m_hiddenFlowCategories[category] = !visible;
    m_state.hiddenFlowCategories = &m_hiddenFlowCategories;
    viewport()->update();
}

void TimelineWidget::setHighlightedNames(std::vector<bool> names)
{
    m_highlightedNames = std::move(names);
    m_state.highlightedNames = m_highlightedNames.empty() ? nullptr : &m_highlightedNames;
    viewport()->update();
}

void TimelineWidget::setHighlightedSlices(std::vector<SliceId> slices)
{
    std::sort(slices.begin(), slices.end());
    slices.erase(std::unique(slices.begin(), slices.end()), slices.end());
    m_highlightedSlices = std::move(slices);
    m_state.highlightedSlices = m_highlightedSlices.empty() ? nullptr : &m_highlightedSlices;
    viewport()->update();
}

void TimelineWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(viewport());
    m_renderer.paint(painter, viewport()->size(), m_layout, m_state);
}

bool TimelineWidget::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::Resize) {
        // The viewport also changes size when a scroll bar appears, without a resize of
        // this widget: keep the visible time range either way.
        const int oldWidth = TimelineRenderer::timeAreaWidth(static_cast<QResizeEvent*>(event)->oldSize());
        if (m_trace && oldWidth > 1)
            applyScale(TimeScale::fit(m_state.scale.viewStart(), m_state.scale.viewEnd(oldWidth), timeAreaWidth()));
        else if (m_trace)
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

void TimelineWidget::showToolTip(const QPoint& pos, const QPoint& globalPos)
{
    const TimelineHit hit = m_renderer.hitTest(pos, viewport()->size(), m_layout, m_state);
    QString text;
    if (hit.kind == TimelineHit::Kind::Folded) {
        text = tr("%n events too small to draw; zoom in", nullptr, int(hit.count));
    } else if (hit.kind == TimelineHit::Kind::Slice) {
        const SliceTable& slices = m_trace->slices();
        const SliceId s = hit.slice;
        text = QStringLiteral("<b>%1</b><br>%2<br>%3 %4<br>%5 %6<br>%7")
                   .arg(qstr(m_trace->str(slices.name[s])).toHtmlEscaped().left(300),
                        qstr(m_trace->str(slices.category[s])).toHtmlEscaped(), tr("Start:"),
                        qstr(formatDuration(slices.start[s] - m_trace->startTime())),
                        tr("Duration:"), qstr(formatDuration(slices.duration[s])),
                        qstr(m_trace->trackDisplayName(m_trace->trackOf(s))).toHtmlEscaped());
    } else if (hit.kind == TimelineHit::Kind::ProcessHeader) {
        text = isProcessCollapsed(hit.process) ? tr("Click to expand") : tr("Click to collapse");
    }
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(globalPos, text, viewport());
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
    if (event->button() == Qt::LeftButton) {
        m_pressPos = event->position().toPoint();
        m_lastDragPos = m_pressPos;
        m_dragging = false;
    }
    QAbstractScrollArea::mousePressEvent(event);
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    if (event->buttons() & Qt::LeftButton) {
        if (!m_dragging && (pos - m_pressPos).manhattanLength() > kDragThreshold)
            m_dragging = true;
        if (m_dragging) {
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
        const TimelineHit hit = m_renderer.hitTest(pos, viewport()->size(), m_layout, m_state);
        m_state.hovered = hit.kind == TimelineHit::Kind::Slice ? hit.slice : kNoSlice;
    }
    viewport()->update();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || m_dragging || !m_trace) {
        m_dragging = false;
        return;
    }
    const TimelineHit hit = m_renderer.hitTest(event->position().toPoint(), viewport()->size(), m_layout, m_state);
    switch (hit.kind) {
    case TimelineHit::Kind::ProcessHeader:
        setProcessCollapsed(hit.process, !isProcessCollapsed(hit.process));
        break;
    case TimelineHit::Kind::Slice:
        select(hit.slice, true);
        break;
    case TimelineHit::Kind::Folded: {
        // Too small to pick one: zoom in on the run instead.
        const SliceTable& slices = m_trace->slices();
        const SliceId last = hit.slice + hit.count - 1;
        setVisibleRange(slices.start[hit.slice], slices.end(last));
        break;
    }
    case TimelineHit::Kind::Label:
    case TimelineHit::Kind::None:
        clearSelection();
        break;
    }
}

void TimelineWidget::leaveEvent(QEvent* event)
{
    m_state.cursorX = -1;
    m_state.hovered = kNoSlice;
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
    case Qt::Key_W:
        zoomAt(centre, 1.0 / kZoomStep);
        break;
    case Qt::Key_S:
        zoomAt(centre, kZoomStep);
        break;
    case Qt::Key_A:
        panBy(-timeAreaWidth() * kPanFraction);
        break;
    case Qt::Key_D:
        panBy(timeAreaWidth() * kPanFraction);
        break;
    case Qt::Key_F:
        fitSelection();
        break;
    case Qt::Key_0:
    case Qt::Key_Home:
        fitAll();
        break;
    case Qt::Key_Escape:
        clearSelection();
        break;
    case Qt::Key_BracketLeft:
        followIncomingFlow();
        break;
    case Qt::Key_BracketRight:
        followOutgoingFlow();
        break;
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
    default:
        QAbstractScrollArea::keyPressEvent(event);
        return;
    }
    event->accept();
}

} // namespace ks
