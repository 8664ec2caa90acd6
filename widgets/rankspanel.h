#pragma once
// The Ranks dock of a multi-rank workspace (issue 13): how the ranks are aligned, the
// straggler verdict with its worst step one click away, a per-rank table (step, compute,
// collective, wait and idle time, waiting caused) and the matched collectives, each
// with its last arrival and longest wait. Double-clicking a collective selects it.
#include "core/analysis/ranks.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QPushButton;
class QStandardItemModel;
class QTableView;

namespace ks {

class RanksPanel : public QWidget {
    Q_OBJECT
public:
    explicit RanksPanel(QWidget* parent = nullptr);

    // `labels`: each member's name ("Rank 0 · host"), in member order.
    void setReport(std::shared_ptr<const analysis::RanksReport> report, const QStringList& labels);
    void setAlignmentText(const QString& text);
    // What the verdict line says with no ranks (by default: how to open several ranks).
    void setEmptyText(const QString& text);
    void clear();
    std::shared_ptr<const analysis::RanksReport> report() const { return m_report; }

    QLabel* verdictLabel() const { return m_verdict; }
    QTableView* rankTable() const { return m_rankView; }
    QTableView* collectiveTable() const { return m_collectiveView; }
    QPushButton* stragglerStepButton() const { return m_stepButton; }
    // The members of the rank table's selected rows, in row order.
    std::vector<std::size_t> selectedMembers() const;

Q_SIGNALS:
    // Show this step of this member (the straggler's worst step, a rank row).
    void stepRequested(std::size_t member, long long step);
    // A matched collective (index into report()->matching.collectives) was chosen.
    void collectiveActivated(std::size_t collective);

private:
    std::shared_ptr<const analysis::RanksReport> m_report;
    QLabel* m_alignment = nullptr;
    QLabel* m_verdict = nullptr;
    QString m_emptyText;
    QPushButton* m_stepButton = nullptr;
    QStandardItemModel* m_rankModel = nullptr;
    QStandardItemModel* m_collectiveModel = nullptr;
    QTableView* m_rankView = nullptr;
    QTableView* m_collectiveView = nullptr;
};

} // namespace ks
