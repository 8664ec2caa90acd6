#pragma once
// The user's steps per trace file (issue 35): "Use as Steps" on a slice of the timeline sets
// them for its trace (a rank, BASE or NEW: each has its own), they are remembered in QSettings
// by the file's path and come back when the file is opened again, alone or with others;
// "Use as Steps…" asks for a name or a regular expression. A status-bar label says which rule
// gave the steps of the trace the GPU Summary shows. GUI thread only.
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

    // The files of the timeline's traces, in order ("" for one without a file); call when
    // it shows them, with rulesFor() each in their TimelineTrace.
    void prepare(const QStringList& paths);
    // "3 steps · labels:step<N>", for the status bar; follows showReport().
    QLabel* label() const { return m_label; }
    // The pattern remembered for `path`, "" when none.
    static QString remembered(const QString& path);
    static facts::StepRules rulesFor(const QString& path) { return {remembered(path).toStdString()}; }

public Q_SLOTS:
    void showReport(const std::shared_ptr<const ks::gpu::GpuReport>& report);

private:
    void remember(std::uint32_t trace, const facts::StepRules& rules);
    void ask(std::uint32_t trace, const QString& name);

    TimelineWidget* m_timeline;
    QWidget* m_window;
    QLabel* m_label;
    QStringList m_paths; // per timeline trace
};

} // namespace ks
