// The user's steps (issue 35): for traces without ProfilerStep#N, any slice's name (or a
// pattern) becomes the steps every analysis of its trace counts in.
#include "widgets/timelinewidget.h"

#include <QMenu>

namespace ks {

facts::StepRules TimelineWidget::stepRules(std::uint32_t trace) const
{
    return trace < m_lanes.size() ? m_lanes[trace].source.stepRules : facts::StepRules{};
}

void TimelineWidget::setStepRules(std::uint32_t trace, facts::StepRules rules)
{
    if (trace >= m_lanes.size())
        return;
    // Groups of one file (a merged file's ranks) share its steps, as they share its facts.
    const std::shared_ptr<const Trace> file = m_lanes[trace].source.trace;
    for (std::uint32_t i = 0; i < m_lanes.size(); ++i) {
        if (m_lanes[i].source.trace != file || m_lanes[i].source.stepRules == rules)
            continue;
        m_lanes[i].source.stepRules = rules;
        Q_EMIT stepRulesChanged(i, rules);
    }
}

void TimelineWidget::execSliceMenu(TraceSlice slice, const QPoint& globalPos)
{
    const auto& trace = *m_lanes[slice.trace].source.trace;
    const std::string_view view = trace.str(trace.slices().name[slice.slice]);
    const QString name = QString::fromUtf8(view.data(), qsizetype(view.size()));
    const std::uint32_t member = slice.trace;
    QMenu menu(this);
    const QString shown = name.size() > 60 ? name.left(57) + QStringLiteral("…") : name;
    menu.addAction(tr("Use “%1” as Steps").arg(shown), this,
                   [this, member, pattern = std::string(view)] { setStepRules(member, {pattern}); });
    menu.addAction(tr("Use as Steps…"), this, [this, member, name] { Q_EMIT stepsDialogRequested(member, name); });
    if (!stepRules(member).userPattern.empty())
        menu.addAction(tr("Find Steps Automatically"), this, [this, member] { setStepRules(member, {}); });
    menu.exec(globalPos);
}

} // namespace ks
