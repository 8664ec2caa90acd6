#pragma once
// The Critical Path dock (issue 36): for one of the timeline's traces (setMember(): the member
// picked above the dock; the primary one at first), each step's critical path as a
// breakdown and a list of segments (clicking one selects it on the timeline), and a what-if
// editor (kind, pattern, factor; add, remove) that re-solves the path and shows the new step
// time. With the highlight on, the timeline shows the chosen step's path and dims the rest
// (the mechanism an insight's evidence uses). A range selected on the timeline gets its own
// path, listed after the steps (in the member's own time).
//
// With the ranks of one run on the timeline (setRanks(): the workspace whose members are the
// timeline's traces), the path is solved over all of them as `kinetoscope-cli critical-path`
// does with several files: collectives wait for the last rank to arrive, and the path of
// the picked rank's step may run through another rank (its segments select there; the
// highlight shows the picked rank's part). Times are then on the ranks' absolute clock.
//
// It follows the timeline by itself: paths are computed by a JobTracker on the views' shared
// analysis pool, never on the GUI thread; a newer trace or what-if supersedes the running job.
#include "core/analysis/criticalpath.h"
#include "core/analysis/workspace.h"

#include <QPointer>
#include <QWidget>

#include <optional>
#include <utility>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTableView;

namespace ks {

class CriticalPathBreakdownModel;
class CriticalPathSegmentsModel;
class JobTracker;
class TimelineWidget;

class CriticalPathPanel : public QWidget {
    Q_OBJECT
public:
    explicit CriticalPathPanel(TimelineWidget* timeline, QWidget* parent = nullptr);
    ~CriticalPathPanel() override;

    const std::vector<analysis::StepCriticalPath>& steps() const { return m_steps; }
    const std::vector<analysis::WhatIf>& whatIfs() const { return m_whatIfs; }
    int currentStep() const;
    CriticalPathSegmentsModel* segmentsModel() const { return m_segments; }
    CriticalPathBreakdownModel* breakdownModel() const { return m_breakdown; }
    QTableView* segmentsView() const { return m_segmentsView; }
    QLabel* summaryLabel() const { return m_summary; }
    bool isPathHighlighted() const { return m_highlight; }
    // The timeline trace whose paths are shown.
    std::uint32_t member() const { return m_member; }

public Q_SLOTS:
    void setPathHighlighted(bool on);
    // Shows the paths of the timeline's trace `member` (a rank, BASE or NEW).
    void setMember(std::uint32_t member);
    // The ranks of one run, the timeline's traces in order; fewer than two members (or a
    // comparison's BASE and NEW, which are not ranks: pass none): each trace alone.
    void setRanks(const ks::analysis::Workspace& ranks);
    void selectStep(int index);
    // Adds a what-if (as `kinetoscope-cli critical-path --what-if` reads it) and re-solves.
    void addWhatIf(const ks::analysis::WhatIf& whatIf);
    void removeWhatIf(int index);
    void selectSegment(int row);

Q_SIGNALS:
    // New paths are in the panel (after the trace or the what-ifs changed).
    void pathsReady();

private:
    void analyze();
    void apply(std::vector<analysis::StepCriticalPath> steps);
    void showCurrentStep();
    void addWhatIfFromEditor();
    void updateHighlight();
    void clearHighlight();
    // The timeline trace of a path member (the ranks' index, else the member shown).
    std::uint32_t timelineTraceOf(std::uint32_t pathMember) const;

    QPointer<TimelineWidget> m_timeline;
    std::shared_ptr<const Trace> m_trace; // the member's
    std::uint32_t m_member = 0;
    std::shared_ptr<const analysis::Workspace> m_ranks; // null: each trace alone
    JobTracker* m_jobs;
    CriticalPathBreakdownModel* m_breakdown;
    CriticalPathSegmentsModel* m_segments;
    QComboBox* m_stepBox;
    QLabel* m_summary;
    QTableView* m_breakdownView;
    QTableView* m_segmentsView;
    QComboBox* m_kind;
    QLineEdit* m_pattern;
    QDoubleSpinBox* m_factor;
    QPushButton* m_add;
    QListWidget* m_whatIfList;
    QPushButton* m_remove;
    std::vector<analysis::StepCriticalPath> m_steps;
    std::vector<analysis::WhatIf> m_whatIfs;
    std::optional<std::pair<TimeNs, TimeNs>> m_range; // selected on the timeline (primary time)
    bool m_highlight = false;
};

} // namespace ks
