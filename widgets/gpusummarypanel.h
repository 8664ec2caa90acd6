#pragma once
// The GPU summary in three tabs, each with the dock's full height: "GPUs" (per GPU name,
// memory, compute capability and the three efficiency metrics, whole trace as TensorBoard
// showed them and for the visible range, plus the steps window), "Step Time Breakdown"
// (stacked bars beside the table) and "GPU Activities / API Calls" (nvprof's summary, the
// numbers of `kinetoscope-cli gpu`). A trace without GPU activity shows one line instead.
// A click on a step selects its ProfilerStep; a double-click (or a bar) also zooms to it.
#include "core/gpu/gpureport.h"

#include <QWidget>

class QLabel;
class QStackedLayout;
class QTabWidget;
class QTableView;

namespace ks {

class GpuStepBreakdownModel;
class GpuStepChart;
class GpuSummaryModel;
class NvprofModel;

class GpuSummaryPanel : public QWidget {
    Q_OBJECT
public:
    explicit GpuSummaryPanel(QWidget* parent = nullptr);

    void setReport(const std::shared_ptr<const gpu::GpuReport>& report);
    // A trace is being analysed: says so above the tabs until its report is set.
    void setAnalysing();
    GpuSummaryModel* summaryModel() const { return m_summary; }
    GpuStepBreakdownModel* breakdownModel() const { return m_breakdown; }
    GpuStepChart* chart() const { return m_chart; }
    QTableView* breakdownView() const { return m_breakdownView; }
    NvprofModel* gpuActivitiesModel() const { return m_activities; }
    NvprofModel* apiCallsModel() const { return m_apiCalls; }
    QTabWidget* tabs() const { return m_tabs; }
    // True when a report is shown and it has no GPU activity (the one-line message).
    bool showsNoGpuMessage() const;
    QString noGpuMessage() const;
    // What the panel says when the report has no GPU activity (the default: the trace has none).
    void setNoGpuMessage(const QString& text);

public Q_SLOTS:
    void setVisibleRange(ks::TimeNs start, ks::TimeNs end);
    // Selects the ProfilerStep of a breakdown row and zooms to the step (the average row:
    // all kept steps).
    void activateStep(int row);
    // Selects the ProfilerStep of a breakdown row without zooming.
    void selectStep(int row);

Q_SIGNALS:
    void stepActivated(ks::TimeNs start, ks::TimeNs end);
    void stepSelected(ks::SliceId step);

private:
    SliceId stepSlice(int row) const;

    std::shared_ptr<const gpu::GpuReport> m_report;
    GpuSummaryModel* m_summary;
    GpuStepBreakdownModel* m_breakdown;
    NvprofModel* m_activities;
    NvprofModel* m_apiCalls;
    GpuStepChart* m_chart;
    QLabel* m_window;
    QLabel* m_analysing;
    QLabel* m_noGpu;
    QTabWidget* m_tabs;
    QStackedLayout* m_pages;
    QTableView* m_summaryView;
    QTableView* m_breakdownView;
};

} // namespace ks
