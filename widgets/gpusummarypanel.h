#pragma once
// The GPU summary: per GPU name, memory, compute capability and the three efficiency
// metrics (whole trace, as TensorBoard showed them, and for the visible range), the steps
// window, and the step-time breakdown as a stacked bar chart plus a table. Clicking a
// step in either asks the timeline to zoom to it.
#include "core/gpu/gpureport.h"

#include <QWidget>

class QLabel;
class QTableView;

namespace ks {

class GpuStepBreakdownModel;
class GpuStepChart;
class GpuSummaryModel;

class GpuSummaryPanel : public QWidget {
    Q_OBJECT
public:
    explicit GpuSummaryPanel(QWidget* parent = nullptr);

    void setReport(std::shared_ptr<const gpu::GpuReport> report);
    GpuSummaryModel* summaryModel() const { return m_summary; }
    GpuStepBreakdownModel* breakdownModel() const { return m_breakdown; }
    GpuStepChart* chart() const { return m_chart; }

public Q_SLOTS:
    void setVisibleRange(ks::TimeNs start, ks::TimeNs end);
    // Zooms to the step of a breakdown row (the average row: all kept steps).
    void activateStep(int row);

Q_SIGNALS:
    void stepActivated(ks::TimeNs start, ks::TimeNs end);

private:
    GpuSummaryModel* m_summary;
    GpuStepBreakdownModel* m_breakdown;
    GpuStepChart* m_chart;
    QLabel* m_window;
    QTableView* m_summaryView;
    QTableView* m_breakdownView;
};

} // namespace ks
