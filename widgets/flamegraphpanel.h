#pragma once
// The Flame Graph dock (issue 38): the call tree of the timeline's trace (whole trace, one
// step or the range selected in the timeline) as a sortable tree view beside a flame graph,
// top-down or bottom-up, by CPU or GPU time, with ops only, Python frames or nn.Module
// frames. In a comparison (setComparison) it can show the diff flame graph of BASE and NEW.
// Double-clicking a node highlights its occurrences on the timeline (as an insight's evidence
// is) and reveals the first. Trees are computed by a JobTracker on the shared analysis pool,
// only while the panel is shown (a hidden dock tab costs nothing when a trace opens).
#include "core/analysis/calltree.h"
#include "core/facts/stepwindows.h"
#include "widgets/flamegraphdata.h"

#include <QPointer>
#include <QWidget>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTreeView;

namespace ks {

class CallTreeModel;
class FlameGraphWidget;
class JobTracker;
class TimelineWidget;

class FlameGraphPanel : public QWidget {
    Q_OBJECT
public:
    explicit FlameGraphPanel(TimelineWidget* timeline, QWidget* parent = nullptr);
    ~FlameGraphPanel() override;

    FlameGraphWidget* flameGraph() const { return m_flame; }
    QTreeView* treeView() const { return m_tree; }
    CallTreeModel* model() const { return m_model; }
    QComboBox* scopeBox() const { return m_scope; }
    QComboBox* directionBox() const { return m_direction; }
    QComboBox* timeBox() const { return m_time; }
    QComboBox* framesBox() const { return m_frames; }
    QCheckBox* diffBox() const { return m_diff; }
    QLineEdit* searchEdit() const { return m_search; }
    // The slices of a node's occurrences (none for a diff).
    std::vector<SliceId> occurrencesOf(std::uint32_t node) const;

public Q_SLOTS:
    void setTrace(std::shared_ptr<const ks::Trace> trace);
    void setRange(ks::TimeNs from, ks::TimeNs to);
    void clearRange();
    // BASE and NEW of a comparison (the diff option); nulls: none.
    void setComparison(std::shared_ptr<const ks::Trace> base, std::shared_ptr<const ks::Trace> next);
    void showOccurrences(std::uint32_t node);

Q_SIGNALS:
    void treeReady(); // a new tree is shown

protected:
    void showEvent(QShowEvent* event) override;

private:
    struct Result {
        std::shared_ptr<const FlameGraphData> data;
        std::shared_ptr<const analysis::CallTree> topDown, shown; // shown: bottom-up or topDown
        std::vector<facts::StepWindow> steps;
        std::size_t stepCount = 1;
    };
    void recompute();
    void apply(Result result);
    void fillScopes(const std::vector<facts::StepWindow>& steps);
    void selectInTree(std::uint32_t node);

    QPointer<TimelineWidget> m_timeline;
    JobTracker* m_jobs;
    QComboBox* m_scope;
    QComboBox* m_direction;
    QComboBox* m_time;
    QComboBox* m_frames;
    QCheckBox* m_diff;
    QLineEdit* m_search;
    QLabel* m_status;
    QTreeView* m_tree;
    CallTreeModel* m_model;
    QSortFilterProxyModel* m_proxy;
    FlameGraphWidget* m_flame;

    std::shared_ptr<const Trace> m_trace;
    std::shared_ptr<const Trace> m_base, m_next;
    std::optional<std::pair<TimeNs, TimeNs>> m_range;
    std::vector<facts::StepWindow> m_steps; // those listed in the scope box
    Result m_result;
    bool m_stale = false; // a tree is due once the panel is shown (hidden docks compute nothing)
};

} // namespace ks
