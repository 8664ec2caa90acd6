#pragma once
// The Job dock (issue 40): a job opened from its rank summaries. The straggler verdict and
// the rank table (the Ranks dock's, on the summaries), the ranks × steps heat map of the
// waiting each rank caused, the summaries left out (named), and the ranks to load in full:
// the suggested ones (the straggler, the ranks that waited most, rank 0), the rows selected,
// a rank clicked in the heat map, or the straggler's step button, with the load's progress.
#include "core/analysis/jobview.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QProgressBar;
class QPushButton;

namespace ks {

class RanksPanel;
class WaitHeatMap;

class JobViewPanel : public QWidget {
    Q_OBJECT
public:
    explicit JobViewPanel(QWidget* parent = nullptr);

    void setJob(std::shared_ptr<const analysis::JobView> job);
    void clear();
    std::shared_ptr<const analysis::JobView> job() const { return m_job; }
    // The ranks open in full (listed under the buttons); a load in progress: percent >= 0.
    void setOpenRanks(const std::vector<int>& ranks);
    void setLoadProgress(int percent, const QString& text);

    RanksPanel* ranksPanel() const { return m_ranks; }
    WaitHeatMap* heatMap() const { return m_heatMap; }
    QLabel* errorsLabel() const { return m_errors; }
    QPushButton* openSuggestedButton() const { return m_openSuggested; }
    QPushButton* openSelectedButton() const { return m_openSelected; }
    QProgressBar* progressBar() const { return m_progress; }

Q_SIGNALS:
    void openRanksRequested(const std::vector<int>& ranks);

private:
    std::shared_ptr<const analysis::JobView> m_job;
    QLabel* m_errors = nullptr;
    RanksPanel* m_ranks = nullptr;
    WaitHeatMap* m_heatMap = nullptr;
    QPushButton* m_openSuggested = nullptr;
    QPushButton* m_openSelected = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_loadText = nullptr;
};

} // namespace ks
