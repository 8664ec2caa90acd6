#include "widgets/gpustepchart.h"

namespace ks {

namespace {

// Fixed hues per role, so a role keeps its colour from trace to trace.
QColor roleColor(gpu::StepRole role)
{
    static const QColor colors[gpu::kStepRoleCount] = {
        QColor(0x4c, 0x72, 0xb0), QColor(0xdd, 0x84, 0x52), QColor(0x55, 0xa8, 0x68), QColor(0xc4, 0x4e, 0x52),
        QColor(0x81, 0x72, 0xb3), QColor(0x93, 0x78, 0x60), QColor(0xda, 0x8b, 0xc3), QColor(0x8c, 0x8c, 0x8c)};
    return colors[std::size_t(role)];
}

} // namespace

GpuStepChart::GpuStepChart(QWidget* parent)
    : QCustomPlot(parent)
{
    setMinimumHeight(180);
    yAxis->setLabel(tr("Step time (ms)"));
    legend->setVisible(true);
    legend->setFont(font());
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    QCPBars* below = nullptr;
    for (std::size_t r = 0; r < gpu::kStepRoleCount; ++r) {
        auto* bars = new QCPBars(xAxis, yAxis);
        const auto role = gpu::StepRole(r);
        bars->setName(QString::fromLatin1(gpu::stepRoleName(role).data()));
        bars->setBrush(roleColor(role));
        bars->setPen(Qt::NoPen);
        bars->setWidth(0.7);
        bars->setStackingGap(0);
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_bars.push_back(bars);
    }
    connect(this, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable*, int dataIndex, QMouseEvent*) { Q_EMIT stepClicked(dataIndex); });
}

void GpuStepChart::setReport(std::shared_ptr<const gpu::GpuReport> report)
{
    m_report = std::move(report);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    QVector<double> keys;
    std::vector<QVector<double>> values(gpu::kStepRoleCount);
    if (m_report) {
        const auto& b = m_report->breakdown;
        for (std::size_t i = 0; i <= b.steps.size() && !b.steps.empty(); ++i) {
            const auto& row = i < b.steps.size() ? b.steps[i] : b.average;
            keys.push_back(double(i));
            ticker->addTick(double(i), i < b.steps.size() ? QString::fromStdString(row.name) : tr("Avg"));
            for (std::size_t r = 0; r < gpu::kStepRoleCount; ++r)
                values[r].push_back(row.parts[r] / 1e6);
        }
    }
    for (std::size_t r = 0; r < gpu::kStepRoleCount; ++r)
        m_bars[r]->setData(keys, values[r], true);
    xAxis->setTicker(ticker);
    xAxis->setRange(-0.6, keys.isEmpty() ? 1.0 : keys.size() - 0.4);
    rescaleAxes(true);
    xAxis->setRange(-0.6, keys.isEmpty() ? 1.0 : keys.size() - 0.4);
    yAxis->setRangeLower(0);
    yAxis->scaleRange(1.1, yAxis->range().lower);
    replot(rpQueuedReplot);
}

double GpuStepChart::barValue(std::size_t bar, gpu::StepRole role) const
{
    const auto data = m_bars[std::size_t(role)]->data();
    return bar < std::size_t(data->size()) ? data->at(int(bar))->value : 0.0;
}

} // namespace ks
