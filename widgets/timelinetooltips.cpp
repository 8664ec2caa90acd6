// What the timeline says about the point under the cursor (slices, counters and GPU
// metrics, fold arrows, instants), and selecting a thread instant: a [memory] sample is
// only a tick, so its bytes and totals are read in Details after a click.
#include "widgets/timelinewidget.h"

#include <QToolTip>

namespace ks {

namespace {

QString qstr(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

} // namespace

QString TimelineWidget::toolTipTextAt(const QPoint& pos) const
{
    const int mark =
        m_marks.markAt(pos, marksArea(), TimelineRenderer::kRulerHeight, [this](TimeNs t) { return viewportXOf(t); });
    if (mark >= 0)
        return QString::fromStdString(m_marks.marks()[std::size_t(mark)].note).toHtmlEscaped();
    const LaneHit at = hitAt(pos);
    const TimelineHit& hit = at.hit;
    QString text;
    if (at.header) {
        text = isTraceCollapsed(at.trace) ? tr("Click to expand") : tr("Click to collapse");
    } else if (hit.kind == TimelineHit::Kind::Folded) {
        text = tr("%n events too small to draw; zoom in", nullptr, int(hit.count));
    } else if (hit.kind == TimelineHit::Kind::Slice) {
        const Trace& trace = *m_lanes[at.trace].source.trace;
        const SliceTable& slices = trace.slices();
        const SliceId s = hit.slice;
        text = QStringLiteral("<b>%1</b><br>%2<br>%3 %4<br>%5 %6<br>%7")
                   .arg(qstr(trace.str(slices.name[s])).toHtmlEscaped().left(300),
                        qstr(trace.str(slices.category[s])).toHtmlEscaped(), tr("Start:"),
                        qstr(formatDuration(slices.start[s] - trace.startTime())), tr("Duration:"),
                        qstr(formatDuration(slices.duration[s])),
                        qstr(trace.trackDisplayName(trace.trackOf(s))).toHtmlEscaped());
        if (m_lanes.size() > 1)
            text += QStringLiteral("<br><i>%1</i>").arg(m_lanes[at.trace].source.title.toHtmlEscaped());
    } else if (hit.kind == TimelineHit::Kind::ProcessHeader) {
        text = isProcessCollapsed(at.trace, hit.process) ? tr("Click to expand") : tr("Click to collapse");
        if (hit.process != kPinnedGroup && pos.x() < TimelineRenderer::kLabelWidth)
            text += tr("; drag to move the group");
    } else if (hit.kind == TimelineHit::Kind::Instant) {
        text = instantToolTip(at.trace, hit.instant);
    } else if (hit.kind == TimelineHit::Kind::Label && hit.counter != kNoIndex) {
        const Lane& lane = m_lanes[at.trace];
        const bool collapsed = hit.item == LayoutItem::Kind::Counter
            ? lane.layout.isCounterCollapsed(hit.counter)
            : lane.layout.isMetricCollapsed(hit.process, hit.counter);
        text = collapsed ? tr("Click to expand") : tr("Click to collapse");
    } else if (hit.kind == TimelineHit::Kind::Counter || hit.kind == TimelineHit::Kind::Metric) {
        const Lane& lane = m_lanes[at.trace];
        text = lane.renderer->readoutAt(pos, viewport()->size(), lane.layout, laneState(at.trace));
    }
    return text;
}

void TimelineWidget::showToolTip(const QPoint& pos, const QPoint& globalPos)
{
    const QString text = toolTipTextAt(pos);
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(globalPos, text, viewport());
}

void TimelineWidget::selectInstant(std::uint32_t instant) { selectInstant(m_current, instant); }

void TimelineWidget::selectInstant(std::uint32_t trace, std::uint32_t instant)
{
    if (trace >= m_lanes.size() || instant >= m_lanes[trace].source.trace->instants().size())
        return;
    select({trace, kNoSlice}, false); // Details first clears, then shows the instant
    m_selectedInstant = instant;
    viewport()->update();
    Q_EMIT instantSelected(instant);
}

QString TimelineWidget::instantToolTip(std::uint32_t trace, std::uint32_t instant) const
{
    const Trace& t = *m_lanes[trace].source.trace;
    const InstantTable& instants = t.instants();
    return QStringLiteral("<b>%1</b><br>%2<br>%3 %4<br><i>%5</i>")
        .arg(qstr(t.str(instants.name[instant])).toHtmlEscaped().left(300),
             qstr(t.str(instants.category[instant])).toHtmlEscaped(), tr("Time:"),
             qstr(formatDuration(instants.time[instant] - t.startTime())), tr("Click for details"));
}

} // namespace ks
