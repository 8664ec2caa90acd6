#pragma once
// The step-time breakdown as stacked bars (one bar per step, then the average), the
// Overview chart TensorBoard had. Clicking a bar reports the step so the timeline can zoom.
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

Q_SIGNALS:
    // The bar of step `row` (breakdown order; the average is last) was clicked.
    void stepClicked(int row);

private:
    std::shared_ptr<const gpu::GpuReport> m_report;
    std::vector<QCPBars*> m_bars; // one per role, stacked in role order
};

} // namespace ks
