#include "widgets/timelinecontextmenu.h"

#include "widgets/timelinewidget.h"

#include <QMenu>

#include <algorithm>

namespace ks {

bool TimelineContextMenu::exec(TimelineWidget& timeline, const TimelineLanes::Hit& at, const QPoint& pos,
                               const QPoint& globalPos)
{
    if (!timeline.trace() || at.trace >= timeline.traceCount())
        return false;
    if (pos.x() >= TimelineRenderer::kLabelWidth) {
        if (at.hit.kind != TimelineHit::Kind::Slice || at.hit.slice == kNoSlice)
            return false;
        execSliceMenu(timeline, {at.trace, at.hit.slice}, globalPos);
        return true;
    }
    if (at.trace != 0) // the track layout menu edits the primary trace's layout
        return false;
    execTrackMenu(timeline, at.hit, globalPos);
    return true;
}

void TimelineContextMenu::execSliceMenu(TimelineWidget& timeline, TraceSlice slice, const QPoint& globalPos)
{
    const Trace& trace = *timeline.traceAt(slice.trace);
    const std::string_view view = trace.str(trace.slices().name[slice.slice]);
    const QString name = QString::fromUtf8(view.data(), qsizetype(view.size()));
    const std::uint32_t member = slice.trace;
    QMenu menu(&timeline);
    const QString shown = name.size() > 60 ? name.left(57) + QStringLiteral("…") : name;
    TimelineWidget* target = &timeline;
    menu.addAction(tr("Use “%1” as Steps").arg(shown), target,
                   [target, member, pattern = std::string(view)] { target->setStepRules(member, {pattern}); });
    menu.addAction(tr("Use as Steps…"), target,
                   [target, member, name] { Q_EMIT target->stepsDialogRequested(member, name); });
    if (!timeline.stepRules(member).userPattern.empty())
        menu.addAction(tr("Find Steps Automatically"), target, [target, member] { target->setStepRules(member, {}); });
    menu.exec(globalPos);
}

void TimelineContextMenu::execTrackMenu(TimelineWidget& timeline, const TimelineHit& hit, const QPoint& globalPos)
{
    TimelineWidget* target = &timeline;
    QMenu menu(target);
    const std::uint32_t track = hit.track;
    if (track != kNoIndex) {
        const bool pinned = timeline.isTrackPinned(track);
        menu.addAction(pinned ? tr("Unpin") : tr("Pin to Top"), target,
                       [target, track, pinned] { target->setTrackPinned(track, !pinned); });
        const auto& lanes = timeline.trace()->tracks()[track].lanes;
        if (std::any_of(lanes.begin(), lanes.end(), [](const ks::Lane& l) { return l.kind == LaneKind::Python; })) {
            const bool folded = timeline.isPythonLaneFolded(track);
            menu.addAction(folded ? tr("Unfold Python Lane") : tr("Fold Python Lane"), target,
                           [target, track, folded] { target->setPythonLaneFolded(track, !folded); });
        }
    }
    const std::uint32_t process = hit.process;
    if (hit.kind == TimelineHit::Kind::ProcessHeader && process != kPinnedGroup && process != kNoIndex) {
        const auto& groups = timeline.trackLayout().groups();
        const auto it = std::find(groups.begin(), groups.end(), process);
        if (it != groups.begin() && *(it - 1) != kPinnedGroup)
            menu.addAction(tr("Move Group Up"), target,
                           [target, process, before = *(it - 1)] { target->moveGroup(process, before); });
        if (it != groups.end() && it + 1 != groups.end()) {
            const std::uint32_t after = it + 2 != groups.end() ? *(it + 2) : kNoIndex;
            menu.addAction(tr("Move Group Down"), target,
                           [target, process, after] { target->moveGroup(process, after); });
        }
    }
    menu.addSeparator();
    QAction* gpu = menu.addAction(tr("GPU Groups First"), target, &TimelineWidget::setGpuFirst);
    gpu->setCheckable(true);
    gpu->setChecked(timeline.gpuFirst());
    menu.addAction(tr("Reset Track Layout"), target, &TimelineWidget::resetTrackLayout);
    menu.exec(globalPos);
}

} // namespace ks
