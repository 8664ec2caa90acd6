#include "app/alignmenu.h"

#include "app/workspacecontroller.h"
#include "widgets/timelinewidget.h"

#include <QActionGroup>

namespace ks {

AlignMenu::AlignMenu(WorkspaceController* workspace, TimelineWidget* timeline, QWidget* parent)
    : QMenu(tr("&Align Traces"), parent)
{
    auto* group = new QActionGroup(this);
    QAction* clock = addAction(tr("By &Absolute Clock"));
    QAction* steps = addAction(tr("At Step &Starts"));
    for (QAction* action : {clock, steps}) {
        action->setCheckable(true);
        group->addAction(action);
    }
    connect(clock, &QAction::triggered, workspace,
            [workspace] { workspace->setAlignment(WorkspaceController::Align::AbsoluteClock); });
    connect(steps, &QAction::triggered, workspace,
            [workspace] { workspace->setAlignment(WorkspaceController::Align::StepStarts); });
    QAction* eachStep = addAction(tr("Align &Each Step Separately"));
    eachStep->setCheckable(true);
    connect(eachStep, &QAction::toggled, workspace, &WorkspaceController::setAlignEachStep);
    addSeparator();
    QAction* allLinks = addAction(tr("Show All &Cross-Rank Links"));
    allLinks->setCheckable(true);
    connect(allLinks, &QAction::toggled, timeline, &TimelineWidget::setShowAllCrossLinks);
    connect(this, &QMenu::aboutToShow, this, [workspace, clock, steps, eachStep] {
        const bool byClock = workspace->alignment() == WorkspaceController::Align::AbsoluteClock;
        clock->setChecked(byClock);
        steps->setChecked(!byClock);
        eachStep->setChecked(workspace->alignsEachStep());
        eachStep->setEnabled(workspace->kind() == WorkspaceController::Kind::Comparison);
    });
    setEnabled(false);
}

} // namespace ks
