#pragma once
// A job opened from a folder of rank summaries (issue 40): reads and analyses the summaries
// off the GUI thread, fills the Job dock, and puts the job on the timeline: every rank as one
// row of its collectives (drawn from its summary), and the ranks chosen to open in full as
// traces of their own above them, loaded on demand with progress. Memory grows only with
// the ranks opened in full.
#include "app/traceloadjob.h"
#include "core/analysis/jobview.h"

#include <QObject>

#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace ks {

class JobTracker;
class JobViewPanel;
class TimelineWidget;

class JobController : public QObject {
    Q_OBJECT
public:
    JobController(TimelineWidget* timeline, JobViewPanel* panel, QObject* parent = nullptr);
    ~JobController() override;

    bool isActive() const { return m_job != nullptr; }
    std::shared_ptr<const analysis::JobView> job() const { return m_job; }
    std::vector<int> fullRanks() const; // ascending
    bool isLoading() const { return m_loader->isRunning(); }
    // The ranks shown as summary rows (those not open in full): indexes into job()->ranks.
    const std::vector<std::uint32_t>& summaryRows() const { return m_summaryRows; }
    // Where a rank's trace is: the path its summary names, else that file name beside the
    // summaries or one folder up; empty when none exists.
    QString traceFileOf(int rank) const;

public Q_SLOTS:
    void open(const QString& folder);
    // Loads these ranks in full (those not open yet), replacing their summary rows.
    void openRanks(const std::vector<int>& ranks);
    void clear();

Q_SIGNALS:
    void statusMessage(const QString& text);
    void jobShown(const QString& folder); // the job view and its rows are up
    void ranksOpened(); // a load on demand finished (the ranks that loaded are in fullRanks())
    void rankTraceOpened(std::shared_ptr<const ks::Trace> trace, const QString& path); // the first one, for the docks

private:
    void showOnTimeline(bool fit);
    void onRanksLoaded(const std::vector<LoadedFile>& files);

    TimelineWidget* m_timeline;
    JobViewPanel* m_panel;
    JobTracker* m_reader; // the summaries, off the GUI thread
    TraceLoadJob* m_loader; // ranks in full, on demand
    std::shared_ptr<const analysis::JobView> m_job;
    // (rank, its trace) in the order opened; a rank of a merged file has a trace of its own processes.
    std::vector<std::pair<int, LoadedFile>> m_full;
    const LoadedFile* fullRank(int rank) const; // nullptr when not open in full
    std::map<QString, int> m_loadingRankOf;
    std::vector<std::uint32_t> m_summaryRows;
};

} // namespace ks
