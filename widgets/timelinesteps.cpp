// The user's steps (issue 35): for traces without ProfilerStep#N, any slice's name (or a
// pattern) becomes the steps every analysis of the primary trace counts in.
#include "widgets/timelinewidget.h"

#include <QMenu>

namespace ks {

void TimelineWidget::setStepRules(facts::StepRules rules)
{
    if (rules == m_stepRules)
        return;
    m_stepRules = std::move(rules);
    Q_EMIT stepRulesChanged(m_stepRules);
}

void TimelineWidget::execSliceMenu(SliceId slice, const QPoint& globalPos)
{
    const auto& trace = *m_lanes.front().source.trace;
    const std::string_view view = trace.str(trace.slices().name[slice]);
    const QString name = QString::fromUtf8(view.data(), qsizetype(view.size()));
    QMenu menu(this);
    const QString shown = name.size() > 60 ? name.left(57) + QStringLiteral("…") : name;
    menu.addAction(tr("Use “%1” as Steps").arg(shown), this,
                   [this, pattern = std::string(view)] { setStepRules({pattern}); });
    menu.addAction(tr("Use as Steps…"), this, [this, name] { Q_EMIT stepsDialogRequested(name); });
    if (!m_stepRules.userPattern.empty())
        menu.addAction(tr("Find Steps Automatically"), this, [this] { setStepRules({}); });
    menu.exec(globalPos);
}

} // namespace ks
