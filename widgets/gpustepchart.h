#pragma once
// The step-time breakdown as stacked bars (one bar per step, then the average), the
// Overview chart TensorBoard had. The legend sits beside the plot (never over the bars) and
// lists the roles that occur; hovering a bar shows the parts of its step. Colours of axes
// and background follow the palette. Clicking a bar reports the step so the timeline can zoom.
#include "core/gpu/gpureport.h"

#include <qcustomplot.h>

#include <memory>

namespace ks {

class GpuStepChart : public QCustomPlot {
    Q_OBJECT
public:
    explicit GpuStepChart(QWidget* parent = nullptr);
    void setReport(std::shared_ptr<const gpu::GpuReport> report);
    // Bar height of a role at a bar index (ms), for tests.
    double barValue(std::size_t bar, gpu::StepRole role) const;
    // The bar under a widget position, or -1.
    int barAt(const QPoint& pos) const;
    // What hovering a bar shows: the step, its total and each non-empty part.
    QString barToolTip(int bar) const;

Q_SIGNALS:
    // The bar of step `row` (breakdown order; the average is last) was clicked.
    void stepClicked(int row);

private:
    const gpu::StepBreakdownRow* barRow(int bar) const;

    std::shared_ptr<const gpu::GpuReport> m_report;
    std::vector<QCPBars*> m_bars; // one per role, stacked in role order
};

} // namespace ks
