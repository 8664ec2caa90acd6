#include "widgets/gpustepchart.h"
#include "widgets/plotexport.h"

#include "widgets/plotpalette.h"

#include <QToolTip>

#include <algorithm>
#include <cmath>

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

constexpr double kBarWidth = 0.7;

} // namespace

GpuStepChart::GpuStepChart(QWidget* parent)
    : QCustomPlot(parent)
{
    addPlotExportMenu(this, QStringLiteral("gpu-steps")); // PNG, SVG, PDF (issue 41)
    setMinimumSize(fontMetrics().averageCharWidth() * 40, fontMetrics().height() * 7);
    yAxis->setLabel(tr("Step time (ms)"));
    legend->setVisible(true);
    legend->setFont(font());
    legend->setIconSize(fontMetrics().height() * 2 / 3, fontMetrics().height() * 2 / 3);
    legend->setRowSpacing(0);
    placeLegendBeside(*this); // never over a bar
    QCPBars* below = nullptr;
    for (std::size_t r = 0; r < gpu::kStepRoleCount; ++r) {
        auto* bars = new QCPBars(xAxis, yAxis);
        const auto role = gpu::StepRole(r);
        bars->setName(QString::fromLatin1(gpu::stepRoleName(role).data()));
        bars->setBrush(roleColor(role));
        bars->setPen(Qt::NoPen);
        bars->setWidth(kBarWidth);
        bars->setStackingGap(0);
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_bars.push_back(bars);
    }
    followPalette(*this);
    setMouseTracking(true);
    connect(this, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable*, int dataIndex, QMouseEvent*) { Q_EMIT stepClicked(dataIndex); });
    connect(this, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        const int bar = barAt(event->pos());
        if (bar < 0)
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), barToolTip(bar), this);
    });
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
    for (std::size_t r = 0; r < gpu::kStepRoleCount; ++r) {
        m_bars[r]->setData(keys, values[r], true);
        // The legend names only the roles that occur in this trace.
        const bool occurs = std::any_of(values[r].begin(), values[r].end(), [](double v) { return v > 0.0; });
        if (occurs)
            m_bars[r]->addToLegend();
        else
            m_bars[r]->removeFromLegend();
    }
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

const gpu::StepBreakdownRow* GpuStepChart::barRow(int bar) const
{
    if (!m_report || bar < 0)
        return nullptr;
    const auto& b = m_report->breakdown;
    if (std::size_t(bar) < b.steps.size())
        return &b.steps[std::size_t(bar)];
    return std::size_t(bar) == b.steps.size() && !b.steps.empty() ? &b.average : nullptr;
}

int GpuStepChart::barAt(const QPoint& pos) const
{
    if (!axisRect()->rect().contains(pos))
        return -1;
    const double key = xAxis->pixelToCoord(pos.x());
    const int bar = int(std::lround(key));
    const gpu::StepBreakdownRow* row = barRow(bar);
    if (!row || std::abs(key - bar) > kBarWidth / 2)
        return -1;
    return yAxis->pixelToCoord(pos.y()) <= row->total / 1e6 ? bar : -1;
}

QString GpuStepChart::barToolTip(int bar) const
{
    const gpu::StepBreakdownRow* row = barRow(bar);
    if (!row)
        return {};
    const bool average = std::size_t(bar) == m_report->breakdown.steps.size();
    QString text =
        QStringLiteral("<b>%1</b> %2<table>")
            .arg(average ? tr("Average step") : tr("Step %1").arg(QString::fromStdString(row->name)).toHtmlEscaped(),
                 QString::fromStdString(formatDuration(TimeNs(std::llround(row->total)))));
    // Top of the stack first, as the bars show them.
    for (std::size_t r = gpu::kStepRoleCount; r-- > 0;) {
        if (row->parts[r] <= 0.0)
            continue;
        const auto role = gpu::StepRole(r);
        text += QStringLiteral("<tr><td><span style=\"color:%1\">■</span> %2</td><td align=right>&nbsp;%3</td>"
                               "<td align=right>&nbsp;%4%</td></tr>")
                    .arg(roleColor(role).name(), QString::fromLatin1(gpu::stepRoleName(role).data()),
                         QString::fromStdString(formatDuration(TimeNs(std::llround(row->parts[r])))))
                    .arg(row->percent(role), 0, 'f', 1);
    }
    return text + QStringLiteral("</table>");
}

} // namespace ks
