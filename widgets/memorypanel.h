#pragma once
// The Memory dock (profile_memory=True traces): per device the allocated and reserved curves
// with the peak, and what is alive at a chosen time ("Go to peak", a click on the chart or on a
// memory track of the timeline, a [memory] instant selected there): size, op, Python stack and
// age, largest first; selecting a row selects its op on the timeline. Its second tab is the
// device's Operator memory table.
//
// It follows the timeline's trace, or with several (ranks, BASE and NEW) the member
// setMember() names: the report and the tables are computed by a JobTracker on the views'
// shared analysis pool, never on the GUI thread. GUI thread only.
#include "core/analysis/memoryoptable.h"

#include <QPointer>
#include <QWidget>

#include <memory>
#include <optional>
#include <utility>

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;
class QTabWidget;

namespace ks {

class JobTracker;
class LiveAllocationsModel;
class MemoryChart;
class OperatorMemoryModel;
class TimelineWidget;

// What the panel shows of one trace, computed off the GUI thread.
struct MemoryViewData {
    std::shared_ptr<const analysis::MemoryReport> report;
    std::vector<analysis::OperatorMemoryTable> tables; // one per report device
};

class MemoryPanel : public QWidget {
    Q_OBJECT
public:
    explicit MemoryPanel(TimelineWidget* timeline, QWidget* parent = nullptr);
    ~MemoryPanel() override;

    const analysis::DeviceMemory* currentDevice() const;
    LiveAllocationsModel* liveModel() const { return m_liveModel; }
    OperatorMemoryModel* operatorModel() const { return m_operatorModel; }
    QTableView* liveView() const { return m_liveView; }
    MemoryChart* chart() const { return m_chart; }
    bool hasResult() const { return m_data.report != nullptr; }
    // The timeline trace shown (0: the primary one).
    std::uint32_t member() const { return m_member; }

public Q_SLOTS:
    void setMember(std::uint32_t member);
    void setDevice(int index);
    void goToPeak();
    // Lists what is alive at a trace time (ns, the trace's own clock).
    void showTime(ks::TimeNs time);

Q_SIGNALS:
    // The report of a new trace is in (after analysis).
    void reportReady();
    // The user clicked the plots of another member: the dock should show that one.
    void memberRequested(std::uint32_t member);

private:
    void analyze(const std::shared_ptr<const Trace>& trace);
    void analyzeMember();
    void apply(MemoryViewData data);
    void updateSummary();
    void selectOpOfRow(int row);
    void showClickedTime();

    QPointer<TimelineWidget> m_timeline;
    JobTracker* m_jobs;
    MemoryViewData m_data;
    std::uint32_t m_member = 0;
    // The member and time of the last click on a plot track, until shown.
    std::optional<std::pair<std::uint32_t, TimeNs>> m_clickedTime;
    QComboBox* m_devices;
    QPushButton* m_peakButton;
    QLabel* m_summary;
    MemoryChart* m_chart;
    QTabWidget* m_tabs;
    LiveAllocationsModel* m_liveModel;
    QTableView* m_liveView;
    OperatorMemoryModel* m_operatorModel;
    QTableView* m_operatorView;
};

} // namespace ks
