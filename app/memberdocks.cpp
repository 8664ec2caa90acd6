#include "app/memberdocks.h"

#include "widgets/memberpicker.h"
#include "widgets/statspanel.h"
#include "widgets/timelinewidget.h"

#include <QDockWidget>
#include <QVBoxLayout>

namespace ks {

MemberPicker* placeUnderMemberPicker(QDockWidget& dock, QWidget* panel, TimelineWidget& timeline)
{
    auto* box = new QWidget(&dock);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* picker = new MemberPicker(&timeline, box);
    layout->addWidget(picker);
    layout->addWidget(panel, 1);
    dock.setWidget(box);
    return picker;
}

void followPickedMember(StatsPanel& panel, const MemberPicker& picker, TimelineWidget& timeline)
{
    StatsPanel* target = &panel;
    const MemberPicker* source = &picker;
    TimelineWidget* view = &timeline;
    QObject::connect(&timeline, &TimelineWidget::visibleRangeChanged, target, [=](TimeNs start, TimeNs end) {
        target->setVisibleRange(view->toTraceTime(source->member(), start), view->toTraceTime(source->member(), end));
    });
    QObject::connect(&timeline, &TimelineWidget::rangeSelected, target, [=](TimeNs start, TimeNs end) {
        target->setRange(view->toTraceTime(source->member(), start), view->toTraceTime(source->member(), end));
    });
    QObject::connect(&timeline, &TimelineWidget::rangeCleared, target, &StatsPanel::clearRange);
    QObject::connect(target, &StatsPanel::occurrenceRequested, view, [=](SliceId slice) {
        view->revealTraceSlice({source->member(), slice});
    });
    QObject::connect(&picker, &MemberPicker::memberChanged, target, [=](std::uint32_t member) {
        target->setTrace(view->traceAt(member));
        const TimeScale scale = view->timeScale();
        target->setVisibleRange(view->toTraceTime(member, scale.viewStart()),
                                view->toTraceTime(member, scale.viewEnd(view->timeAreaWidth())));
        if (view->hasSelectedRange()) {
            const TimeExtent range = view->selectedRange();
            target->setRange(view->toTraceTime(member, range.start), view->toTraceTime(member, range.end));
        }
    });
}

} // namespace ks
