#pragma once
// The traces open together: the ranks of a run (several files, a folder) or BASE and NEW
// of a comparison. Holds the analysis::Workspace, puts its members on the timeline (one
// group each, ordered by rank), applies the alignment chosen in the View menu, runs the
// diff or ranks analysis in the background (JobTracker), and wires the Diff and Ranks docks to the
// timeline: highlighted diff rows, the same step marked on every rank, matched
// collectives as cross-rank links with every rank's times in Details.
#include "app/traceloadjob.h"
#include "core/analysis/diff.h"
#include "core/analysis/ranks.h"
#include "core/timeline/traceslice.h"
#include "widgets/difftablemodel.h"

#include <QObject>
#include <QStringList>

#include <map>
#include <memory>
#include <vector>

namespace ks {

class DetailsPanel;
class DiffPanel;
class JobTracker;
class RanksPanel;
class TimelineWidget;

class WorkspaceController : public QObject {
    Q_OBJECT
public:
    enum class Kind { Ranks, Comparison };
    enum class Align { AbsoluteClock, StepStarts };

    WorkspaceController(TimelineWidget* timeline, DetailsPanel* details, DiffPanel* diff, RanksPanel* ranks,
                        QObject* parent = nullptr);
    ~WorkspaceController() override;

    // Shows the loaded traces (a comparison: BASE first, then NEW). Returns the sentences
    // to tell the user (different runs, duplicate ranks, devices differ).
    QStringList open(const std::vector<LoadedFile>& files, Kind kind);
    void clear();
    bool isActive() const { return m_workspace.size() > 1; }
    Kind kind() const { return m_kind; }
    Align alignment() const { return m_align; }
    bool alignsEachStep() const { return m_eachStep; }
    const analysis::Workspace& workspace() const { return m_workspace; }
    QString alignmentText() const { return m_alignmentText; }
    // The member shown in each timeline group (titles as drawn).
    QStringList titles() const;

public Q_SLOTS:
    void setAlignment(ks::WorkspaceController::Align align);
    // Comparison: step k of NEW over step k of BASE for the step in view.
    void setAlignEachStep(bool on);

Q_SIGNALS:
    void statusMessage(const QString& text);
    void analysisReady(); // the Diff or Ranks dock has its report
    // The ranks of a run are on the timeline (its traces, in order), or their steps changed;
    // a comparison sends an empty workspace (BASE and NEW are not ranks).
    void ranksChanged(const ks::analysis::Workspace& ranks);

private:
    void applyAlignment();
    void applyStepUnderView();
    void startAnalysis();
    void analysisFailed(const QString& message);
    void highlightDiffRow(DiffTableModel::Kind kind, const QString& name, bool family);
    void onSelection(TraceSlice selection);
    void markSameStep(TraceSlice selection);
    void describeCollective(TraceSlice selection);
    void revealStep(std::size_t member, long long number);
    void revealCollective(std::size_t collective);
    void setRanksReport(std::shared_ptr<const analysis::RanksReport> report);
    // The Diff dock's report of two members: BASE and NEW of a comparison, or the two ranks
    // of a run picked in the dock.
    void diffMembers(int base, int neu);

    TimelineWidget* m_timeline;
    DetailsPanel* m_details;
    DiffPanel* m_diff;
    RanksPanel* m_ranks;
    JobTracker* m_jobs; // the ranks analysis, off the GUI thread
    JobTracker* m_diffJobs; // the Diff dock's report, off the GUI thread
    std::pair<int, int> m_diffPair{0, 1}; // those two (BASE, NEW)
    analysis::Workspace m_workspace;
    Kind m_kind = Kind::Ranks;
    Align m_align = Align::AbsoluteClock;
    bool m_eachStep = false;
    bool m_applyingStep = false;
    long long m_alignedStep = -1;
    QString m_alignmentText;
    std::shared_ptr<const analysis::RanksReport> m_ranksReport;
    // (member, kernel slice) -> matched collective, for Details and cross-rank links.
    std::map<std::pair<std::size_t, SliceId>, std::size_t> m_collectiveOf;
    std::vector<TraceSlice> m_collectiveTargets; // Details link targets of the shown collective
};

} // namespace ks
