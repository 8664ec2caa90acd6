#include "widgets/timelinelanes.h"

#include "widgets/timelinelayoutsettings.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace ks {

namespace {

const QColor kTraceHeader(52, 64, 88);
const QColor kTraceHeaderEdge(20, 24, 32);

} // namespace

TimelineLanes::TimelineLanes() = default;

void TimelineLanes::show(std::vector<TimelineTrace> traces)
{
    m_lanes.clear();
    for (TimelineTrace& source : traces) {
        if (!source.trace)
            continue;
        TimelineLane lane;
        lane.renderer = std::make_unique<TimelineRenderer>();
        lane.renderer->setTrace(source.trace);
        lane.renderer->setChrome(m_emptyRenderer.chrome());
        lane.collapsed.assign(source.trace->processes().size(), false);
        lane.content = contentExtent(*source.trace);
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
        for (TimelineLane& lane : m_lanes) {
            const auto& processes = lane.source.trace->processes();
            for (std::size_t p = 0; p < processes.size(); ++p)
                lane.collapsed[p] = !processes[p].isDevice;
        }
    }
    m_traceCollapsed.assign(m_lanes.size(), false);
}

std::shared_ptr<const Trace> TimelineLanes::traceAt(std::uint32_t trace) const
{
    return trace < m_lanes.size() ? m_lanes[trace].source.trace : nullptr;
}

facts::StepRules TimelineLanes::stepRules(std::uint32_t trace) const
{
    return trace < m_lanes.size() ? m_lanes[trace].source.stepRules : facts::StepRules{};
}

std::vector<std::uint32_t> TimelineLanes::setStepRules(std::uint32_t trace, const facts::StepRules& rules)
{
    std::vector<std::uint32_t> changed;
    if (trace >= m_lanes.size())
        return changed;
    const std::shared_ptr<const Trace> file = m_lanes[trace].source.trace;
    for (std::uint32_t i = 0; i < m_lanes.size(); ++i) {
        if (m_lanes[i].source.trace == file && m_lanes[i].source.stepRules != rules) {
            m_lanes[i].source.stepRules = rules;
            changed.push_back(i);
        }
    }
    return changed;
}

TimeNs TimelineLanes::offset(std::uint32_t trace) const
{
    return trace < m_lanes.size() ? m_lanes[trace].source.offset : 0;
}

QString TimelineLanes::title(std::uint32_t trace) const
{
    return trace < m_lanes.size() ? m_lanes[trace].source.title : QString();
}

void TimelineLanes::setOffsets(const std::vector<TimeNs>& offsets)
{
    for (std::size_t i = 0; i < m_lanes.size() && i < offsets.size(); ++i)
        m_lanes[i].source.offset = offsets[i];
}

TimeExtent TimelineLanes::axisExtent(bool contentOnly) const
{
    TimeExtent axis;
    for (std::size_t i = 0; i < m_lanes.size(); ++i) {
        const TimelineLane& lane = m_lanes[i];
        const TimeExtent own =
            contentOnly ? lane.content : TimeExtent{lane.source.trace->startTime(), lane.source.trace->endTime()};
        const TimeExtent shifted{own.start + lane.source.offset, own.end + lane.source.offset};
        axis = i == 0 ? shifted : TimeExtent{std::min(axis.start, shifted.start), std::max(axis.end, shifted.end)};
    }
    return axis;
}

TimeExtent TimelineLanes::navigableExtent() const
{
    const TimeExtent content = axisExtent(true);
    const TimeNs margin = std::max<TimeNs>((content.end - content.start) / 50, 1000);
    return {content.start - margin, content.end + margin};
}

const TrackLayout& TimelineLanes::layout(std::uint32_t trace) const
{
    return trace < m_lanes.size() ? m_lanes[trace].layout : m_emptyLayout;
}

const TimelineRenderer& TimelineLanes::renderer(std::uint32_t trace) const
{
    return trace < m_lanes.size() ? *m_lanes[trace].renderer : m_emptyRenderer;
}

void TimelineLanes::setChrome(const TimelineChrome& chrome)
{
    m_emptyRenderer.setChrome(chrome);
    for (TimelineLane& lane : m_lanes)
        lane.renderer->setChrome(chrome);
}

bool TimelineLanes::isProcessCollapsed(std::uint32_t trace, std::uint32_t process) const
{
    return trace < m_lanes.size() && process < m_lanes[trace].collapsed.size() && m_lanes[trace].collapsed[process];
}

bool TimelineLanes::setProcessCollapsed(std::uint32_t trace, std::uint32_t process, bool collapsed)
{
    if (trace >= m_lanes.size())
        return false;
    std::vector<bool>& flags = m_lanes[trace].collapsed;
    if (process >= flags.size() || flags[process] == collapsed)
        return false;
    flags[process] = collapsed;
    return true;
}

bool TimelineLanes::isTraceCollapsed(std::uint32_t trace) const
{
    return trace < m_traceCollapsed.size() && m_traceCollapsed[trace];
}

bool TimelineLanes::setTraceCollapsed(std::uint32_t trace, bool collapsed)
{
    if (trace >= m_traceCollapsed.size() || m_traceCollapsed[trace] == collapsed)
        return false;
    m_traceCollapsed[trace] = collapsed;
    return true;
}

void TimelineLanes::changeLayoutOptions(std::uint32_t trace, const std::function<void(LayoutOptions&)>& change,
                                        bool remember)
{
    if (trace >= m_lanes.size())
        return;
    TrackLayout& layout = m_lanes[trace].layout;
    LayoutOptions options = layout.options();
    change(options);
    if (remember && m_lanes.size() == 1)
        TimelineLayoutSettings::save(*m_lanes[0].source.trace, options);
    layout.setOptions(std::move(options));
}

void TimelineLanes::relayout()
{
    std::vector<int> heights;
    for (TimelineLane& lane : m_lanes) {
        lane.layout.build(*lane.source.trace, lane.collapsed);
        heights.push_back(lane.layout.totalHeight());
    }
    m_stack.build(heights, m_traceCollapsed);
}

TimelineViewState TimelineLanes::laneState(std::uint32_t trace, const TimelineViewState& axis,
                                           const TimelineSelection& selection) const
{
    const TimelineLane& lane = m_lanes[trace];
    TimelineViewState state = axis;
    state.scale = TimeScale(axis.scale.viewStart() - lane.source.offset, axis.scale.nsPerPixel());
    state.scrollY = axis.scrollY - m_stack.bodyTop(trace);
    state.selected = selection.slice.trace == trace ? selection.slice.slice : kNoSlice;
    state.selectedInstant = selection.slice.trace == trace ? selection.instant : kNoIndex;
    state.hovered = selection.hovered.trace == trace ? selection.hovered.slice : kNoSlice;
    lane.highlights.applyTo(state);
    return state;
}

int TimelineLanes::viewportYOfRow(std::uint32_t trace, std::uint32_t row, int scrollY) const
{
    if (trace >= m_lanes.size() || m_stack.isCollapsed(trace))
        return -1;
    const int top = m_lanes[trace].layout.rowTop(row);
    if (top < 0)
        return -1;
    return m_stack.bodyTop(trace) + top - scrollY + TimelineRenderer::kRulerHeight
        + m_lanes[trace].layout.metrics().rowHeight / 2;
}

TimelineLanes::Hit TimelineLanes::hitAt(const QPoint& pos, const QSize& size, const TimelineViewState& axis,
                                        const TimelineSelection& selection) const
{
    Hit result;
    if (m_lanes.empty() || pos.y() < TimelineRenderer::kRulerHeight)
        return result;
    if (m_lanes.size() == 1) {
        result.trace = 0;
        result.hit = m_lanes[0].renderer->hitTest(pos, size, m_lanes[0].layout, laneState(0, axis, selection));
        return result;
    }
    const auto at = m_stack.at(pos.y() - TimelineRenderer::kRulerHeight + axis.scrollY);
    if (at.trace == kNoIndex)
        return result;
    result.trace = at.trace;
    result.header = at.header;
    if (!at.header) {
        const TimelineLane& lane = m_lanes[at.trace];
        result.hit = lane.renderer->hitTest(pos, size, lane.layout, laneState(at.trace, axis, selection));
    }
    return result;
}

QPointF TimelineLanes::anchorOf(TraceSlice end, const QSize& size, const TimelineViewState& axis,
                                const TimelineSelection& selection, bool* inside) const
{
    const TimelineLane& lane = m_lanes[end.trace];
    QPointF point =
        lane.renderer->sliceAnchor(size, lane.layout, laneState(end.trace, axis, selection), end.slice, inside);
    if (isTraceCollapsed(end.trace)) {
        // A collapsed trace: point at its header.
        const double y = m_stack.headerTop(end.trace) - axis.scrollY + TimelineRenderer::kRulerHeight
            + StackedTraceLayout::kHeaderHeight / 2.0;
        point.setY(std::clamp(y, double(TimelineRenderer::kRulerHeight + 1), double(size.height() - 2)));
    }
    return point;
}

void TimelineLanes::paint(QPainter& painter, const QSize& size, const TimelineViewState& axis,
                          const TimelineSelection& selection, const std::function<void(QPainter&)>& beforeRuler)
{
    if (m_lanes.size() <= 1) {
        // One trace: exactly the single-trace frame.
        if (m_lanes.empty())
            m_emptyRenderer.paint(painter, size, m_emptyLayout, axis);
        else
            m_lanes[0].renderer->paint(painter, size, m_lanes[0].layout, laneState(0, axis, selection));
        return;
    }
    painter.fillRect(QRect(QPoint(0, 0), size), m_emptyRenderer.chrome().background);
    const int toView = TimelineRenderer::kRulerHeight - axis.scrollY;
    for (std::uint32_t i = 0; i < m_lanes.size(); ++i) {
        if (m_stack.bodyHeight(i) == 0)
            continue;
        const QRect band(0, m_stack.bodyTop(i) + toView, size.width(), m_stack.bodyHeight(i));
        m_lanes[i].renderer->paintBand(painter, size, m_lanes[i].layout, laneState(i, axis, selection), band);
    }
    paintHeaders(painter, size, axis.scrollY);
    beforeRuler(painter);
    m_lanes[0].renderer->paintRuler(painter, size, m_lanes[0].layout, laneState(0, axis, selection));
}

void TimelineLanes::paintHeaders(QPainter& painter, const QSize& size, int scrollY) const
{
    const int tracksTop = TimelineRenderer::kRulerHeight;
    painter.save();
    painter.setClipRect(QRect(0, tracksTop, size.width(), TimelineRenderer::tracksAreaHeight(size)));
    QFont bold = painter.font();
    bold.setBold(true);
    bold.setPixelSize(12);
    painter.setFont(bold);
    const QFontMetrics metrics(bold);
    for (std::uint32_t i = 0; i < m_lanes.size(); ++i) {
        const int y = m_stack.headerTop(i) - scrollY + tracksTop;
        const int h = StackedTraceLayout::kHeaderHeight;
        if (y + h < tracksTop || y > size.height())
            continue;
        painter.fillRect(QRect(0, y, size.width(), h), kTraceHeader);
        painter.fillRect(QRect(0, y + h - 1, size.width(), 1), kTraceHeaderEdge);
        const QString text =
            (isTraceCollapsed(i) ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + m_lanes[i].source.title;
        painter.setPen(Qt::white);
        const int textWidth = size.width() - 12;
        painter.drawText(QRect(6, y, textWidth, h), Qt::AlignVCenter,
                         metrics.elidedText(text, Qt::ElideRight, textWidth));
    }
    painter.restore();
}

// Below the ruler, across every track: the gaps an insight counts (GPU idle) show where they are.
void TimelineLanes::paintShadedRanges(QPainter& painter, const QSize& size, const TimeScale& axis) const
{
    const int left = TimelineRenderer::kLabelWidth;
    const int right = left + TimelineRenderer::timeAreaWidth(size);
    const int top = TimelineRenderer::kRulerHeight;
    const int height = size.height() - top;
    QColor shade(230, 120, 20, 60);
    for (const TimelineLane& lane : m_lanes) {
        for (const TimeExtent& range : lane.highlights.shadedRanges()) {
            const double x0 = left + axis.timeToX(range.start + lane.source.offset);
            const double x1 = left + axis.timeToX(range.end + lane.source.offset);
            if (x1 < left || x0 > right)
                continue;
            const int a = int(std::max<double>(x0, left));
            const int b = std::max(a + 1, int(std::min<double>(x1, right)));
            painter.fillRect(QRect(a, top, b - a, height), shade);
        }
    }
}

} // namespace ks
