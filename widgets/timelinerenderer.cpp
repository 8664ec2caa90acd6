#include "widgets/timelinerenderer.h"

#include "core/timeline/flowlinks.h"

#include <QFontMetrics>
#include <QObject>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

const QColor kGlobalInstant = QColor::fromRgb(TimelineRenderer::kGlobalInstantColor);
const QColor kProcessInstant(90, 90, 160);
const QColor kSelection(10, 10, 10);
const QColor kFlowColor(200, 40, 40);
const QColor kHighlight(255, 170, 0);
const QColor kHover(30, 90, 200);
constexpr int kMinLabelWidthPx = 28;
constexpr int kLabelWidthStep = 8;
constexpr std::size_t kMaxCachedLabels = 20000;

QString qstr(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

// Washes a colour out towards the background: slices that do not match the search recede.
QColor washedOut(const QColor& c, const QColor& target)
{
    return QColor((c.red() + 3 * target.red()) / 4, (c.green() + 3 * target.green()) / 4,
                  (c.blue() + 3 * target.blue()) / 4);
}

} // namespace

// One frame's geometry.
struct TimelineRenderer::Viewport {
    QSize size;
    const TrackLayout& layout;
    const TimelineViewState& state;
    int timeWidth = 0;
    int tracksHeight = 0;

    int timeLeft() const { return kLabelWidth; }
    // Content y (layout coordinates) to viewport y.
    int toViewY(int contentY) const { return contentY - state.scrollY + kRulerHeight; }
};

TimelineRenderer::TimelineRenderer()
{
    m_font.setPixelSize(11);
    m_fontHeight = QFontMetrics(m_font).height();
    m_boldFont = m_font;
    m_boldFont.setBold(true);
}

void TimelineRenderer::setTrace(std::shared_ptr<const Trace> trace)
{
    m_trace = std::move(trace);
    m_colors.setTrace(m_trace.get());
    m_labels.clear();
    m_plots.setTrace(m_trace);
}

void TimelineRenderer::paint(QPainter& p, const QSize& size, const TrackLayout& layout, const TimelineViewState& state)
{
    m_stats = {};
    const Viewport v{size, layout, state, timeAreaWidth(size), tracksAreaHeight(size)};
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setFont(m_font);
    p.fillRect(QRect(QPoint(0, 0), size), m_chrome.background);
    if (m_trace)
        paintTracks(p, v, QRect(0, kRulerHeight, size.width(), v.tracksHeight));
    paintRuler(p, v);
}

void TimelineRenderer::paintBand(QPainter& p, const QSize& size, const TrackLayout& layout,
                                 const TimelineViewState& state, const QRect& band)
{
    m_stats = {};
    const Viewport v{size, layout, state, timeAreaWidth(size), tracksAreaHeight(size)};
    const QRect clip = band.intersected(QRect(0, kRulerHeight, size.width(), v.tracksHeight));
    if (!m_trace || clip.isEmpty())
        return;
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setFont(m_font);
    paintTracks(p, v, clip);
}

void TimelineRenderer::paintRuler(QPainter& p, const QSize& size, const TrackLayout& layout,
                                  const TimelineViewState& state) const
{
    const Viewport v{size, layout, state, timeAreaWidth(size), tracksAreaHeight(size)};
    paintRuler(p, v);
}

void TimelineRenderer::paintTracks(QPainter& p, const Viewport& v, const QRect& clip)
{
    const TimelineViewState& state = v.state;
    const TrackLayout& layout = v.layout;
    p.save();
    p.setClipRect(QRect(v.timeLeft(), clip.top(), v.timeWidth, clip.height()));
    const int contentTop = clip.top() - kRulerHeight + state.scrollY;
    const auto [first, last] = layout.itemsIn(contentTop, contentTop + clip.height());
    // Backgrounds, then the grid, then the events on top. Everything here is opaque and
    // axis-aligned: translucent or tall thin shapes make Qt's raster engine blend span
    // by span (and farm the spans out to threads), which costs more than all the slices.
    for (std::size_t i = first; i < last; ++i) {
        const LayoutItem& item = layout.items()[i];
        const QRect band(v.timeLeft(), v.toViewY(item.y), v.timeWidth, item.height);
        if (item.kind == LayoutItem::Kind::Process)
            p.fillRect(band, m_chrome.header);
        else if (item.kind == LayoutItem::Kind::Track && i % 2 == 0)
            p.fillRect(band, m_chrome.trackShade);
    }
    for (const RulerTick& tick : rulerTicks(v))
        p.fillRect(QRect(tick.x, clip.top(), 1, clip.height()), m_chrome.grid);
    for (std::size_t i = first; i < last; ++i) {
        const LayoutItem& item = layout.items()[i];
        const int y = v.toViewY(item.y);
        switch (item.kind) {
        case LayoutItem::Kind::Process: paintScopedInstants(p, v, item.index, y, item.height); break;
        case LayoutItem::Kind::Track: {
            const Track& track = m_trace->tracks()[item.index];
            const int stripTop = layout.instantStripTop(item.index);
            if (stripTop >= 0)
                paintInstants(p, v, item.index, v.toViewY(stripTop));
            for (std::uint32_t r = track.rowBegin; r < track.rowEnd; ++r) {
                if (layout.rowTop(r) < 0)
                    continue; // a folded Python lane's deeper rows
                const int rowY = v.toViewY(layout.rowTop(r));
                if (rowY + layout.metrics().rowHeight >= clip.top() && rowY <= clip.bottom())
                    paintRow(p, v, r, rowY);
            }
            break;
        }
        case LayoutItem::Kind::Counter:
            m_plots.paintCounter(p, v.state.scale, v.timeLeft(), v.timeWidth, item, y);
            break;
        case LayoutItem::Kind::Metric:
            m_plots.paintGpuMetric(p, v.state.scale, v.timeLeft(), v.timeWidth, item, y, m_chrome);
            break;
        }
    }
    paintScopedInstants(p, v, kNoIndex, clip.top(), clip.height());
    paintSelection(p, v);
    paintFlows(p, v);
    p.restore();

    paintLabels(p, v, clip);
}

std::vector<TimelineRenderer::RulerTick> TimelineRenderer::rulerTicks(const Viewport& v) const
{
    std::vector<RulerTick> ticks;
    const TimeScale& scale = v.state.scale;
    const TimeNs origin = m_trace->startTime();
    const TimeNs step = rulerTickStep(scale.nsPerPixel(), 90);
    // First tick at or after the view start, on a multiple of `step` from the origin.
    const TimeNs rel = scale.viewStart() - origin;
    TimeNs tick = origin + (rel >= 0 ? (rel + step - 1) / step : rel / step) * step;
    const TimeNs viewEnd = scale.viewEnd(v.timeWidth);
    for (; tick <= viewEnd; tick += step)
        ticks.push_back({v.timeLeft() + static_cast<int>(std::floor(scale.timeToX(tick))), tick, step});
    return ticks;
}

void TimelineRenderer::paintRuler(QPainter& p, const Viewport& v) const
{
    p.fillRect(QRect(0, 0, v.size.width(), kRulerHeight - 1), m_chrome.labelBackground);
    p.fillRect(QRect(0, kRulerHeight - 1, v.size.width(), 1), m_chrome.rulerEdge);
    if (!m_trace)
        return;
    const TimeScale& scale = v.state.scale;
    const TimeNs origin = m_trace->startTime();
    p.setFont(m_font);
    p.setPen(m_chrome.text);
    TimeNs step = 1;
    for (const RulerTick& tick : rulerTicks(v)) {
        p.fillRect(QRect(tick.x, kRulerHeight - 8, 1, 7), m_chrome.tick);
        p.drawText(tick.x + 3, kRulerHeight - 10, qstr(rulerLabel(tick.time - origin, tick.step)));
        step = tick.step;
    }
    if (v.state.cursorX >= 0 && v.state.cursorX < v.timeWidth) {
        const QColor cursor(30, 90, 200);
        const int x = v.timeLeft() + static_cast<int>(v.state.cursorX);
        p.fillRect(QRect(x, 0, 1, v.size.height()), cursor);
        // In the time's own unit to a hundredth of a tick ("7.33 ms", not "7334.578 µs").
        const TimeNs resolution = std::max<TimeNs>(step / 100, 1);
        const QString label =
            qstr(rulerLabel((scale.xToTime(v.state.cursorX) - origin) / resolution * resolution, resolution));
        const QRect box = QFontMetrics(m_font).boundingRect(label).adjusted(-3, -1, 3, 1);
        const QRect placed(x + 2, 1, box.width(), box.height());
        p.fillRect(placed, cursor);
        p.setPen(Qt::white);
        p.drawText(placed, Qt::AlignCenter, label);
    }
    p.fillRect(QRect(0, 0, kLabelWidth, kRulerHeight - 1), m_chrome.labelBackground);
    p.setPen(m_chrome.text);
    p.drawText(QRect(6, 0, kLabelWidth - 6, kRulerHeight), Qt::AlignVCenter, QObject::tr("Δ from trace start"));
}

void TimelineRenderer::paintRow(QPainter& p, const Viewport& v, std::uint32_t row, int y)
{
    const int height = v.layout.metrics().rowHeight - 1;
    m_items.clear();
    appendRowDrawList(*m_trace, row, v.state.scale, v.timeWidth, m_items);
    const SliceTable& slices = m_trace->slices();
    const std::vector<bool>* highlight = v.state.highlightedNames;
    const std::vector<SliceId>* highlightSlices = v.state.highlightedSlices;
    const bool dimming = highlight || highlightSlices;
    // Whether any highlighted slice lies in [first, first + count) (a row's slice ids are contiguous).
    const auto slicesHighlighted = [highlightSlices](SliceId first, std::uint32_t count) {
        if (!highlightSlices)
            return false;
        const auto it = std::lower_bound(highlightSlices->begin(), highlightSlices->end(), first);
        return it != highlightSlices->end() && *it < first + std::max<std::uint32_t>(count, 1);
    };
    // Folded columns that touch are filled as one rectangle (coloured by the first run):
    // fully zoomed out that replaces thousands of one-pixel fills per row.
    int pendingX = 0, pendingRight = -1;
    QColor pendingColor;
    const auto flushFolded = [&] {
        if (pendingRight >= pendingX)
            p.fillRect(QRect(pendingX, y + 2, pendingRight - pendingX + 1, height - 4), pendingColor);
        pendingRight = -1;
    };
    for (const DrawItem& item : m_items) {
        ++m_stats.items;
        m_stats.events += item.count;
        const double left = std::max(item.x0, 0.0);
        const double right = std::min(std::max(item.x1, item.x0 + 1.0), double(v.timeWidth));
        const int x = v.timeLeft() + static_cast<int>(std::floor(left));
        const int w = std::max(1, static_cast<int>(std::floor(right)) - static_cast<int>(std::floor(left)));
        if (item.folded()) {
            ++m_stats.foldedItems;
            if (pendingRight >= x - 1) {
                pendingRight = std::max(pendingRight, x + w - 1);
                continue;
            }
            flushFolded();
            // A run of events too small to tell apart: drawn as one darker block.
            pendingColor = m_colors.foldedColorOf(item.first);
            if (dimming && !slicesHighlighted(item.first, item.count))
                pendingColor = washedOut(pendingColor, m_chrome.washTarget);
            pendingX = x;
            pendingRight = x + w - 1;
            continue;
        }
        flushFolded();
        QColor color = m_colors.colorOf(item.first);
        const StringId name = slices.name[item.first];
        const bool matched =
            (highlight && name < highlight->size() && (*highlight)[name]) || slicesHighlighted(item.first, 1);
        if (dimming && !matched)
            color = washedOut(color, m_chrome.washTarget);
        p.fillRect(QRect(x, y, w, height), color);
        if (matched) {
            p.setPen(kHighlight);
            p.drawRect(QRect(x, y, w - 1, height - 1));
        }
        if (w >= kMinLabelWidthPx) {
            const QStaticText& label = labelFor(name, w);
            if (!label.text().isEmpty()) {
                p.setPen(SliceColors::textColorOn(color));
                p.drawStaticText(x + 3, y + (height - m_fontHeight) / 2, label);
            }
        }
    }
    flushFolded();
}

const QStaticText& TimelineRenderer::labelFor(StringId name, int width)
{
    const int bucket = width / kLabelWidthStep * kLabelWidthStep;
    const std::uint64_t key = (std::uint64_t(name) << 20) | std::uint64_t(std::min(bucket, (1 << 20) - 1));
    const auto it = m_labels.find(key);
    if (it != m_labels.end())
        return it->second;
    if (m_labels.size() >= kMaxCachedLabels)
        m_labels.clear();
    // Kernel names run to 800 characters: shape only what could fit (no glyph is
    // narrower than 3 px at this size), marking the cut with an ellipsis.
    const std::string_view text = m_trace->str(name);
    const std::size_t maxChars = std::size_t(bucket / 3) + 1;
    QString full = qstr(text.substr(0, maxChars));
    if (text.size() > maxChars)
        full += QChar(0x2026);
    QString elided = QFontMetrics(m_font).elidedText(full, Qt::ElideRight, bucket - 6);
    if (elided.size() <= 1)
        elided.clear();
    QStaticText label(elided);
    label.setTextFormat(Qt::PlainText);
    label.setPerformanceHint(QStaticText::AggressiveCaching);
    label.prepare(QTransform(), m_font);
    return m_labels.emplace(key, std::move(label)).first->second;
}

void TimelineRenderer::paintScopedInstants(QPainter& p, const Viewport& v, std::uint32_t process, int y,
                                           int height) const
{
    // Thread instants come first in the table (sorted by track); the process and global
    // ones share its time-sorted tail, where track is kNoIndex.
    const auto& instants = m_trace->instants();
    const auto tail = std::partition_point(instants.track.begin(), instants.track.end(),
                                           [](std::uint32_t track) { return track != kNoIndex; });
    const auto first = static_cast<std::size_t>(tail - instants.track.begin());
    const TimeScale& scale = v.state.scale;
    const auto times = instants.time.begin();
    const TimeNs viewEnd = scale.viewEnd(v.timeWidth);
    const bool global = process == kNoIndex;
    const QColor color = global ? kGlobalInstant : kProcessInstant;
    int lastX = -1;
    for (auto i =
             static_cast<std::size_t>(std::lower_bound(times + first, instants.time.end(), scale.viewStart()) - times);
         i < instants.size() && instants.time[i] <= viewEnd; ++i) {
        const bool matches = global ? instants.scope[i] == InstantScope::Global
                                    : instants.scope[i] == InstantScope::Process && instants.process[i] == process;
        // kineto puts its global instants exactly at the trace's ends: keep them inside.
        const int x = std::clamp(static_cast<int>(std::floor(scale.timeToX(instants.time[i]))), 0, v.timeWidth - 1);
        if (!matches || x == lastX)
            continue;
        lastX = x;
        if (global)
            p.fillRect(QRect(v.timeLeft() + x, y, 1, height), color);
        else
            p.fillRect(QRect(v.timeLeft() + x - 1, y + 3, 3, height - 6), color);
    }
}

void TimelineRenderer::paintInstants(QPainter& p, const Viewport& v, std::uint32_t track, int y) const
{
    const Track& t = m_trace->tracks()[track];
    const auto& times = m_trace->instants().time;
    const TimeScale& scale = v.state.scale;
    const auto end = times.begin() + t.instantEnd;
    auto it = std::lower_bound(times.begin() + t.instantBegin, end, scale.viewStart());
    const TimeNs viewEnd = scale.viewEnd(v.timeWidth);
    const QColor color(90, 90, 160);
    const int height = v.layout.metrics().instantStrip - 2;
    // One tick per pixel column at most: jump to the next column after each tick. Ticks
    // in adjacent columns are filled as one rectangle.
    int runStart = 0, runEnd = -1;
    while (it != end && *it < viewEnd) {
        const int x = static_cast<int>(std::floor(scale.timeToX(*it)));
        if (x != runEnd + 1) {
            if (runEnd >= runStart)
                p.fillRect(QRect(v.timeLeft() + runStart, y + 1, runEnd - runStart + 1, height), color);
            runStart = x;
        }
        runEnd = x;
        it = gallopingLowerBound(it + 1, end, scale.xToTime(x + 1.0));
    }
    if (runEnd >= runStart)
        p.fillRect(QRect(v.timeLeft() + runStart, y + 1, runEnd - runStart + 1, height), color);
}

void TimelineRenderer::paintLabels(QPainter& p, const Viewport& v, const QRect& clip) const
{
    p.fillRect(QRect(0, clip.top(), kLabelWidth, clip.height()), m_chrome.labelBackground);
    p.save();
    p.setClipRect(QRect(0, clip.top(), kLabelWidth, clip.height()));
    const QFontMetrics metrics(m_font);
    const int contentTop = clip.top() - kRulerHeight + v.state.scrollY;
    const auto [first, last] = v.layout.itemsIn(contentTop, contentTop + clip.height());
    for (std::size_t i = first; i < last; ++i) {
        const LayoutItem& item = v.layout.items()[i];
        const int y = v.toViewY(item.y);
        QString text;
        if (item.kind == LayoutItem::Kind::Process) {
            p.fillRect(QRect(0, y, kLabelWidth, item.height), m_chrome.header);
            text = (item.collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ "))
                + (item.index == kNoIndex           ? QObject::tr("Counters")
                       : item.index == kPinnedGroup ? QObject::tr("Pinned")
                                                    : qstr(m_trace->processDisplayName(item.index)));
            p.setFont(m_boldFont);
            p.setPen(m_chrome.headerText);
            p.drawText(QRect(4, y, kLabelWidth - 8, item.height), Qt::AlignVCenter,
                       QFontMetrics(m_boldFont).elidedText(text, Qt::ElideRight, kLabelWidth - 8));
            p.setFont(m_font);
            continue;
        }
        if (item.kind == LayoutItem::Kind::Metric) {
            m_plots.paintGpuMetricLabel(p, item, y, kLabelWidth, m_font, m_chrome);
            continue;
        }
        const bool counter = item.kind == LayoutItem::Kind::Counter;
        text = counter ? qstr(m_trace->counters()[item.index].name) : qstr(m_trace->trackDisplayName(item.index));
        const auto& folded = v.layout.options().foldedPythonLanes;
        if (!counter && item.index < folded.size() && folded[item.index])
            text += QObject::tr(" · Python folded");
        // Sticky: a tall track scrolled half out keeps its label at the top of the view.
        const int labelHeight = std::min(16, item.height);
        const int labelTop = std::clamp(clip.top(), y, y + item.height - labelHeight);
        p.fillRect(QRect(0, y + item.height - 1, kLabelWidth, 1), m_chrome.separator);
        p.setPen(m_chrome.text);
        const int left = counter ? 4 : 16; // a counter's label starts with its fold arrow
        int scaleWidth = 0;
        if (counter) {
            text = (item.collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + text;
            scaleWidth = m_plots.paintCounterScale(p, item, y, kLabelWidth, m_font, m_chrome);
            p.setPen(m_chrome.text);
        }
        const int textWidth = kLabelWidth - left - 4 - scaleWidth;
        p.drawText(QRect(left, labelTop, textWidth, labelHeight), Qt::AlignVCenter,
                   metrics.elidedText(text, Qt::ElideRight, textWidth));
    }
    p.fillRect(QRect(kLabelWidth - 1, clip.top(), 1, clip.height()), m_chrome.labelEdge);
    p.restore();
}

void TimelineRenderer::outlineSlice(QPainter& p, const Viewport& v, SliceId s, const QPen& pen) const
{
    if (s == kNoSlice || s >= m_trace->slices().size())
        return;
    const int top = v.layout.rowTop(m_trace->slices().row[s]);
    if (top < 0)
        return;
    const TimeScale& scale = v.state.scale;
    const double x0 = std::max(scale.timeToX(m_trace->slices().start[s]), -4.0);
    const double x1 = std::min(scale.timeToX(m_trace->slices().end(s)), v.timeWidth + 4.0);
    if (x1 < -2 || x0 > v.timeWidth + 2)
        return;
    const int x = v.timeLeft() + static_cast<int>(std::floor(x0));
    const int w = std::max(2, static_cast<int>(std::ceil(x1 - x0)));
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRect(x - 1, v.toViewY(top) - 1, w + 1, v.layout.metrics().rowHeight));
}

void TimelineRenderer::paintSelection(QPainter& p, const Viewport& v) const
{
    // Hovering a slice outlines the other ends of its flows (a kernel's launch, a
    // launch's kernels), as Tracy does, without changing the selection.
    const SliceId hovered = v.state.hovered;
    if (hovered != kNoSlice && hovered < m_trace->slices().size()) {
        const QPen peerPen(kHover, 2);
        for (const FlowLink& link : flowLinksOf(*m_trace, hovered))
            outlineSlice(p, v, link.other, peerPen);
    }
    if (v.state.markedSlices) {
        const QPen markPen(kHighlight, 2);
        for (SliceId s : *v.state.markedSlices)
            outlineSlice(p, v, s, markPen);
    }
    outlineSlice(p, v, v.state.selected, QPen(kSelection, 2));
    paintSelectedInstant(p, v);
}

void TimelineRenderer::paintSelectedInstant(QPainter& p, const Viewport& v) const
{
    const std::uint32_t instant = v.state.selectedInstant;
    if (instant >= m_trace->instants().size() || m_trace->instants().track[instant] == kNoIndex)
        return;
    const int strip = v.layout.instantStripTop(m_trace->instants().track[instant]);
    const double x = v.state.scale.timeToX(m_trace->instants().time[instant]);
    if (strip < 0 || x < -3 || x > v.timeWidth + 3)
        return;
    // A highlighted tick, taller than the strip, outlined like a selected slice.
    const QRect marker(v.timeLeft() + int(std::floor(x)) - 2, v.toViewY(strip) - 1, 5,
                       v.layout.metrics().instantStrip + 2);
    p.fillRect(marker, kHighlight);
    p.setPen(QPen(kSelection, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(marker.adjusted(0, 0, -1, -1));
}

std::uint32_t TimelineRenderer::instantNear(std::uint32_t track, double x, const TimeScale& scale) const
{
    const Track& t = m_trace->tracks()[track];
    const auto& times = m_trace->instants().time;
    const auto end = times.begin() + t.instantEnd;
    std::uint32_t nearest = kNoIndex;
    double best = kInstantHitPx + 0.5;
    for (auto it = std::lower_bound(times.begin() + t.instantBegin, end, scale.xToTime(x - kInstantHitPx - 1));
         it != end && scale.timeToX(*it) <= x + kInstantHitPx + 1; ++it) {
        const double distance = std::abs(std::floor(scale.timeToX(*it)) + 0.5 - x);
        if (distance < best) {
            best = distance;
            nearest = std::uint32_t(it - times.begin());
        }
    }
    return nearest;
}

bool TimelineRenderer::anchorOf(const Viewport& v, SliceId slice, QPointF& point) const
{
    const std::uint32_t row = m_trace->slices().row[slice];
    int top = v.layout.rowTop(row);
    if (top < 0) {
        // Collapsed group: point at its header.
        const std::uint32_t process = m_trace->tracks()[m_trace->rows()[row].track].process;
        for (const LayoutItem& item : v.layout.items()) {
            if (item.kind == LayoutItem::Kind::Process && item.index == process)
                top = item.y;
        }
    }
    const double x = v.state.scale.timeToX(m_trace->slices().start[slice]);
    const double y = v.toViewY(top) + v.layout.metrics().rowHeight / 2.0;
    const double cx = std::clamp(x, 0.0, double(v.timeWidth - 1));
    const double cy = std::clamp(y, double(kRulerHeight + 1), double(v.size.height() - 2));
    point = QPointF(v.timeLeft() + cx, cy);
    return cx == x && cy == y;
}

void TimelineRenderer::paintFlowArrow(QPainter& p, const Viewport& v, SliceId from, SliceId to)
{
    ++m_stats.flowArrows;
    QPointF a, b;
    anchorOf(v, from, a);
    const bool targetInside = anchorOf(v, to, b);
    drawFlowCurve(p, a, b, targetInside);
}

QPointF TimelineRenderer::sliceAnchor(const QSize& size, const TrackLayout& layout, const TimelineViewState& state,
                                      SliceId slice, bool* inside) const
{
    const Viewport v{size, layout, state, timeAreaWidth(size), tracksAreaHeight(size)};
    QPointF point;
    const bool in = anchorOf(v, slice, point);
    if (inside)
        *inside = in;
    return point;
}

void TimelineRenderer::drawFlowCurve(QPainter& p, const QPointF& a, const QPointF& b, bool targetInside)
{
    QPainterPath path(a);
    const double bend = std::max(20.0, std::abs(b.x() - a.x()) / 3);
    path.cubicTo(a + QPointF(bend, 0), b - QPointF(bend, 0), b);
    p.drawPath(path);
    // Arrow head along the curve's final direction; a hollow one when the target is
    // off screen and the arrow stops at the edge.
    const QPointF dir = b - path.pointAtPercent(0.97);
    const double len = std::hypot(dir.x(), dir.y());
    if (len < 1e-6)
        return;
    const QPointF u = dir / len;
    const QPointF n(-u.y(), u.x());
    const QPolygonF head{b, b - 8 * u + 4 * n, b - 8 * u - 4 * n};
    p.setBrush(targetInside ? p.pen().color() : QColor(Qt::white));
    p.drawPolygon(head);
    p.setBrush(Qt::NoBrush);
}

void TimelineRenderer::paintFlows(QPainter& p, const Viewport& v)
{
    const auto& flows = m_trace->flows();
    const auto visible = [&](std::uint32_t f) {
        const auto* hidden = v.state.hiddenFlowCategories;
        return !(hidden && flows[f].category < hidden->size() && (*hidden)[flows[f].category]);
    };
    p.setRenderHint(QPainter::Antialiasing, true);
    if (v.state.allFlowsInView) {
        // Bounded: walk the visible single slices (already culled per row) and stop at
        // the cap, so a dense trace cannot stall a frame.
        p.setPen(QPen(QColor(120, 120, 120, 140), 1));
        int drawn = 0;
        const auto [first, last] = v.layout.itemsIn(v.state.scrollY, v.state.scrollY + v.tracksHeight);
        std::vector<DrawItem> items;
        for (std::size_t i = first; i < last && drawn < kMaxFlowsInView; ++i) {
            const LayoutItem& item = v.layout.items()[i];
            if (item.kind != LayoutItem::Kind::Track)
                continue;
            const Track& track = m_trace->tracks()[item.index];
            for (std::uint32_t r = track.rowBegin; r < track.rowEnd && drawn < kMaxFlowsInView; ++r) {
                if (v.layout.rowTop(r) < 0)
                    continue;
                items.clear();
                appendRowDrawList(*m_trace, r, v.state.scale, v.timeWidth, items);
                for (const DrawItem& d : items) {
                    for (SliceId s = d.first; s < d.first + d.count && drawn < kMaxFlowsInView; ++s) {
                        for (std::uint32_t f : m_trace->outgoingFlows(s)) {
                            if (visible(f) && drawn < kMaxFlowsInView) {
                                paintFlowArrow(p, v, flows[f].from, flows[f].to);
                                ++drawn;
                            }
                        }
                    }
                }
            }
        }
    }
    if (v.state.selected != kNoSlice && v.state.selected < m_trace->slices().size()) {
        p.setPen(QPen(kFlowColor, 1.6));
        for (const FlowLink& link : flowLinksOf(*m_trace, v.state.selected)) {
            if (!visible(link.flow))
                continue;
            paintFlowArrow(p, v, flows[link.flow].from, flows[link.flow].to);
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

QString TimelineRenderer::readoutAt(const QPoint& pos, const QSize& size, const TrackLayout& layout,
                                    const TimelineViewState& state) const
{
    const TimelineHit hit = hitTest(pos, size, layout, state);
    return m_plots.readout(hit, state.scale.xToTime(pos.x() - kLabelWidth), state.scale, timeAreaWidth(size));
}

TimelineHit TimelineRenderer::hitTest(const QPoint& pos, const QSize& size, const TrackLayout& layout,
                                      const TimelineViewState& state) const
{
    TimelineHit hit;
    if (!m_trace || pos.y() < kRulerHeight)
        return hit;
    const int contentY = pos.y() - kRulerHeight + state.scrollY;
    const LayoutItem* item = layout.itemAt(contentY);
    if (!item)
        return hit;
    if (item->kind == LayoutItem::Kind::Process) {
        hit.kind = TimelineHit::Kind::ProcessHeader;
        hit.process = item->index;
        return hit;
    }
    hit.process = item->group;
    hit.item = item->kind;
    const bool plot = item->kind == LayoutItem::Kind::Counter || item->kind == LayoutItem::Kind::Metric;
    if (item->kind == LayoutItem::Kind::Track)
        hit.track = item->index;
    else if (plot)
        hit.counter = item->index;
    if (pos.x() < kLabelWidth) {
        hit.kind = TimelineHit::Kind::Label;
        return hit;
    }
    if (plot) {
        hit.kind = item->kind == LayoutItem::Kind::Counter ? TimelineHit::Kind::Counter : TimelineHit::Kind::Metric;
        return hit;
    }
    const int strip = layout.instantStripTop(item->index);
    if (strip >= 0 && contentY >= strip && contentY < strip + layout.metrics().instantStrip) {
        hit.instant = instantNear(item->index, pos.x() - kLabelWidth, state.scale);
        if (hit.instant != kNoIndex)
            hit.kind = TimelineHit::Kind::Instant;
        return hit;
    }
    const std::uint32_t row = layout.rowAt(contentY);
    if (row == kNoIndex)
        return hit;
    std::vector<DrawItem> items;
    appendRowDrawList(*m_trace, row, state.scale, timeAreaWidth(size), items);
    const DrawItem* d = drawItemAt(items, 0, items.size(), pos.x() - kLabelWidth);
    if (!d)
        return hit;
    hit.kind = d->folded() ? TimelineHit::Kind::Folded : TimelineHit::Kind::Slice;
    hit.slice = d->first;
    hit.count = d->count;
    return hit;
}

} // namespace ks
