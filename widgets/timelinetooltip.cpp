#include "widgets/timelinetooltip.h"

namespace ks {

namespace {

QString qstr(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

} // namespace

QString TimelineToolTip::textAt(const TimelineLanes& lanes, const TimelineLanes::Hit& at, const QPoint& pos,
                                const QSize& size, const TimelineViewState& axis, const TimelineSelection& selection)
{
    const TimelineHit& hit = at.hit;
    QString text;
    if (at.header) {
        text = lanes.isTraceCollapsed(at.trace) ? tr("Click to expand") : tr("Click to collapse");
    } else if (hit.kind == TimelineHit::Kind::Folded) {
        text = tr("%n events too small to draw; zoom in", nullptr, int(hit.count));
    } else if (hit.kind == TimelineHit::Kind::Slice) {
        const Trace& trace = *lanes[at.trace].source.trace;
        const SliceTable& slices = trace.slices();
        const SliceId s = hit.slice;
        text = QStringLiteral("<b>%1</b><br>%2<br>%3 %4<br>%5 %6<br>%7")
                   .arg(qstr(trace.str(slices.name[s])).toHtmlEscaped().left(300),
                        qstr(trace.str(slices.category[s])).toHtmlEscaped(), tr("Start:"),
                        qstr(formatDuration(slices.start[s] - trace.startTime())), tr("Duration:"),
                        qstr(formatDuration(slices.duration[s])),
                        qstr(trace.trackDisplayName(trace.trackOf(s))).toHtmlEscaped());
        if (lanes.size() > 1)
            text += QStringLiteral("<br><i>%1</i>").arg(lanes[at.trace].source.title.toHtmlEscaped());
    } else if (hit.kind == TimelineHit::Kind::ProcessHeader) {
        text = lanes.isProcessCollapsed(at.trace, hit.process) ? tr("Click to expand") : tr("Click to collapse");
        if (hit.process != kPinnedGroup && pos.x() < TimelineRenderer::kLabelWidth)
            text += tr("; drag to move the group");
    } else if (hit.kind == TimelineHit::Kind::Instant) {
        text = instantText(*lanes[at.trace].source.trace, hit.instant);
    } else if (hit.kind == TimelineHit::Kind::Label && hit.counter != kNoIndex) {
        const TimelineLane& lane = lanes[at.trace];
        const bool collapsed = hit.item == LayoutItem::Kind::Counter
            ? lane.layout.isCounterCollapsed(hit.counter)
            : lane.layout.isMetricCollapsed(hit.process, hit.counter);
        text = collapsed ? tr("Click to expand") : tr("Click to collapse");
    } else if (hit.kind == TimelineHit::Kind::Counter || hit.kind == TimelineHit::Kind::Metric) {
        const TimelineLane& lane = lanes[at.trace];
        text = lane.renderer->readoutAt(pos, size, lane.layout, lanes.laneState(at.trace, axis, selection));
    }
    return text;
}

QString TimelineToolTip::instantText(const Trace& trace, std::uint32_t instant)
{
    const InstantTable& instants = trace.instants();
    return QStringLiteral("<b>%1</b><br>%2<br>%3 %4<br><i>%5</i>")
        .arg(qstr(trace.str(instants.name[instant])).toHtmlEscaped().left(300),
             qstr(trace.str(instants.category[instant])).toHtmlEscaped(), tr("Time:"),
             qstr(formatDuration(instants.time[instant] - trace.startTime())), tr("Click for details"));
}

} // namespace ks
