#pragma once
// The Insights dock: the findings of the timeline's trace, largest time at stake first.
// Selecting one highlights its evidence on the timeline (the rest is dimmed) and shows its
// explanation and fix; Previous/Next walk the evidence (select and reveal). "Visible range
// only" keeps the findings, and the evidence walked, to what is in view.
//
// It follows the timeline by itself: a new trace is analysed by a JobTracker (on the views'
// shared analysis pool, never the global one); a newer trace makes older results stale. The host adds the
// panel to a dock and countLabel() to its status bar. GUI thread only.
//
// With several traces (ranks, BASE and NEW) it shows one member's findings (setMember(),
// analysed when first asked for, then kept), or, with "All traces", every member's with a
// trace column, cross-rank findings (straggler) included. Evidence is highlighted and walked
// in the trace it belongs to. Gaps (gpu-idle) are shaded on the timeline.
#include "core/analysis/insights.h"

#include <QPointer>
#include <QWidget>

#include <optional>

class QCheckBox;
class QLabel;
class QTableView;
class QTextBrowser;
class QToolButton;

namespace ks {

class InsightsModel;
class JobTracker;
class TimelineWidget;

class InsightsPanel : public QWidget {
    Q_OBJECT
public:
    explicit InsightsPanel(TimelineWidget* timeline, QWidget* parent = nullptr);
    ~InsightsPanel() override;

    InsightsModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    // "N insights" for the host's status bar (owned by the panel's parent chain once added).
    QLabel* countLabel() const { return m_countLabel; }
    // The evidence of the current insight that Previous/Next walk (visible range applied).
    const std::vector<analysis::Evidence>& currentEvidence() const { return m_evidence; }
    int currentEvidenceIndex() const { return m_evidenceIndex; }
    // The timeline trace whose findings are listed (unless allMembers()).
    std::uint32_t member() const { return m_member; }
    bool allMembers() const;
    QCheckBox* allMembersCheckBox() const { return m_allMembers; }

public Q_SLOTS:
    void selectInsight(int row);
    void nextEvidence();
    void previousEvidence();
    void setVisibleRangeOnly(bool on);
    void setMember(std::uint32_t member);
    void setAllMembers(bool on);

Q_SIGNALS:
    // New findings are in the model (after a trace was analysed).
    void insightsReady(int count);

private:
    void analyze(std::shared_ptr<const Trace> trace);
    // Its steps changed: its findings (and the all-members list) are computed again.
    void forgetMember(std::uint32_t member);
    // Shows the cached findings of the member (or of all) or starts their analysis.
    void request();
    void apply(std::vector<analysis::Insight> insights);
    // The evidence's time in the primary trace's time (the timeline's API speaks it).
    TimeNs primaryTime(const analysis::Insight& insight, TimeNs t) const;
    void onVisibleRangeChanged(TimeNs start, TimeNs end);
    void refreshCurrent();
    void showOverview();
    void stepEvidence(int delta);
    void updateLabels();

    QPointer<TimelineWidget> m_timeline;
    JobTracker* m_jobs; // on the shared analysis pool; a newer trace supersedes the analysis
    InsightsModel* m_model;
    QTableView* m_view;
    QTextBrowser* m_details;
    QCheckBox* m_visibleOnly;
    QCheckBox* m_allMembers;
    QToolButton* m_previous;
    QToolButton* m_next;
    QLabel* m_evidenceLabel;
    QLabel* m_countLabel;
    bool m_hasResult = false; // the current trace was analysed
    std::uint32_t m_member = 0;
    // Findings by member (traceIndex set to it), and of all members; kept until new traces come.
    std::vector<std::optional<std::vector<analysis::Insight>>> m_memberInsights;
    std::optional<std::vector<analysis::Insight>> m_allInsights;
    analysis::PeakOverrides m_peaks; // the roofs the kept findings were computed with
    std::vector<analysis::Evidence> m_evidence;
    int m_evidenceIndex = -1;
    TimeNs m_viewStart = 0, m_viewEnd = 0;
};

} // namespace ks
