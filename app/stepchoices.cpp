#include "app/stepchoices.h"

#include "widgets/timelinewidget.h"

#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QSettings>

namespace ks {

namespace {

const QString kSettingsKey = QStringLiteral("steps/chosen"); // {file path: pattern}

} // namespace

StepChoices::StepChoices(TimelineWidget* timeline, QWidget* window)
    : QObject(window)
    , m_timeline(timeline)
    , m_window(window)
    , m_label(new QLabel(window))
{
    m_label->setObjectName(QStringLiteral("stepsLabel"));
    connect(timeline, &TimelineWidget::stepRulesChanged, this, &StepChoices::remember);
    connect(timeline, &TimelineWidget::stepsDialogRequested, this, &StepChoices::ask);
}

QString StepChoices::remembered(const QString& path)
{
    return path.isEmpty() ? QString() : QSettings().value(kSettingsKey).toMap().value(path).toString();
}

void StepChoices::prepare(const QStringList& paths)
{
    m_paths = paths;
    m_label->clear();
}

void StepChoices::remember(std::uint32_t trace, const facts::StepRules& rules)
{
    const QString path = m_paths.value(int(trace));
    if (path.isEmpty())
        return;
    QSettings settings;
    QVariantMap chosen = settings.value(kSettingsKey).toMap();
    if (rules.userPattern.empty())
        chosen.remove(path);
    else
        chosen.insert(path, QString::fromStdString(rules.userPattern));
    settings.setValue(kSettingsKey, chosen);
    // The ranks of a merged file are traces of their own: the choice is the file's, so each
    // of them takes it (each change comes back here once; unchanged ones are not signalled).
    for (int other = 0; other < m_paths.size(); ++other) {
        if (std::uint32_t(other) != trace && m_paths[other] == path
            && m_timeline->stepRules(std::uint32_t(other)) != rules)
            m_timeline->setStepRules(std::uint32_t(other), rules);
    }
}

void StepChoices::ask(std::uint32_t trace, const QString& name)
{
    // Non-blocking: the window keeps running while the user types.
    auto* dialog = new QInputDialog(m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Use as Steps"));
    dialog->setLabelText(tr("Ranges named this, or whose names match it as a regular expression, are the steps\n"
                            "(used when the trace has no ProfilerStep#N):"));
    dialog->setTextValue(name);
    connect(dialog, &QInputDialog::textValueSelected, this, [this, trace](const QString& text) {
        const std::string pattern = text.trimmed().toStdString();
        if (const std::string error = facts::stepPatternError(pattern); !error.empty()) {
            QMessageBox::warning(m_window, tr("Use as Steps"),
                                 tr("“%1” is %2.").arg(text, QString::fromStdString(error)));
            return;
        }
        m_timeline->setStepRules(trace, {pattern});
    });
    dialog->open();
}

void StepChoices::showReport(const std::shared_ptr<const gpu::GpuReport>& report)
{
    if (!report || !report->facts) {
        m_label->clear();
        return;
    }
    const auto& w = report->facts->windows;
    m_label->setText(
        w.source == facts::StepSource::None
            ? tr("No steps")
            : tr("%n step(s) · %1", nullptr, int(w.steps.size())).arg(QString::fromStdString(w.sourceName)));
    m_label->setToolTip(tr("Where the steps come from: ProfilerStep#N, the steps you chose (right-click a range), "
                           "labels with a counter (step0, step1, …) or Optimizer.step"));
}

} // namespace ks
