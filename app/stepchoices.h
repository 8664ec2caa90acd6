#pragma once
// The user's steps per trace file (issue 35): "Use as Steps" on a slice of the timeline sets
// them, they are remembered in QSettings by the file's path and come back when the file is
// opened again; "Use as Steps…" asks for a name or a regular expression. A status-bar label
// says which rule gave the steps of the trace shown. GUI thread only.
#include "core/gpu/gpureport.h"

#include <QObject>
#include <QString>

class QLabel;
class QWidget;

namespace ks {

class TimelineWidget;

class StepChoices : public QObject {
    Q_OBJECT
public:
    StepChoices(TimelineWidget* timeline, QWidget* window);

    // Call before the timeline shows the trace of `path` ("" when it has no file).
    void prepare(const QString& path);
    // "3 steps · labels:step<N>", for the status bar; follows showReport().
    QLabel* label() const { return m_label; }
    // The pattern remembered for `path`, "" when none.
    static QString remembered(const QString& path);

public Q_SLOTS:
    void showReport(const std::shared_ptr<const ks::gpu::GpuReport>& report);

private:
    void remember(const facts::StepRules& rules);
    void ask(const QString& name);

    TimelineWidget* m_timeline;
    QWidget* m_window;
    QLabel* m_label;
    QString m_path;
};

} // namespace ks
