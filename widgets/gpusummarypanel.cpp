#include "widgets/gpusummarypanel.h"

#include "widgets/gpustepbreakdownmodel.h"
#include "widgets/gpustepchart.h"
#include "widgets/gpusummarymodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace ks {

GpuSummaryPanel::GpuSummaryPanel(QWidget* parent)
    : QWidget(parent)
    , m_summary(new GpuSummaryModel(this))
    , m_breakdown(new GpuStepBreakdownModel(this))
    , m_chart(new GpuStepChart(this))
    , m_window(new QLabel(this))
    , m_summaryView(new QTableView(this))
    , m_breakdownView(new QTableView(this))
{
    m_summaryView->setModel(m_summary);
    m_summaryView->verticalHeader()->hide();
    m_summaryView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_summaryView->setMaximumHeight(90);
    m_breakdownView->setModel(m_breakdown);
    m_breakdownView->verticalHeader()->hide();
    m_breakdownView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_breakdownView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_window->setWordWrap(true);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_chart);
    splitter->addWidget(m_breakdownView);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summaryView);
    layout->addWidget(m_window);
    layout->addWidget(splitter, 1);

    connect(m_chart, &GpuStepChart::stepClicked, this, &GpuSummaryPanel::activateStep);
    connect(m_breakdownView, &QTableView::activated, this,
            [this](const QModelIndex& index) { activateStep(index.row()); });
}

void GpuSummaryPanel::setReport(std::shared_ptr<const gpu::GpuReport> report)
{
    m_summary->setReport(report);
    m_breakdown->setReport(report);
    m_chart->setReport(report);
    if (!report) {
        m_window->clear();
        return;
    }
    const auto& w = report->analysis.windows;
    QString text = tr("Steps window %1 (%n step(s)), trace window %2.", nullptr, int(w.steps.size()))
                       .arg(QString::fromStdString(formatDuration(w.stepsSpan())),
                            QString::fromStdString(formatDuration(w.globalSpan())));
    if (!w.hasProfilerSteps)
        text += QLatin1Char(' ') + tr("No ProfilerStep in this trace: one step spans the host events.");
    if (report->analysis.summaries.empty())
        text += QLatin1Char(' ') + tr("No kernels with a device: no GPU metrics.");
    m_window->setText(text);
}

void GpuSummaryPanel::setVisibleRange(TimeNs start, TimeNs end)
{
    m_summary->setRange(start, end);
}

void GpuSummaryPanel::activateStep(int row)
{
    if (const gpu::StepBreakdownRow* step = m_breakdown->stepRow(row); step && step->end > step->start)
        Q_EMIT stepActivated(step->start, step->end);
}

} // namespace ks
