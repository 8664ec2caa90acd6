#include "widgets/gpusummarypanel.h"

#include "widgets/columnwidths.h"
#include "widgets/gpustepbreakdownmodel.h"
#include "widgets/gpustepchart.h"
#include "widgets/gpusummarymodel.h"
#include "widgets/nvprofmodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedLayout>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace ks {

namespace {

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setModel(model);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

// nvprof's section title above its table, sortable by the numbers. Kernel names run long:
// the columns fit their contents (the name within bounds) until the user resizes them,
// which is remembered under `key`.
QWidget* makeNvprofSection(const QString& title, const QString& key, NvprofModel* model, QWidget* parent)
{
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(title, box));
    auto* sorted = new QSortFilterProxyModel(box);
    sorted->setSourceModel(model);
    sorted->setSortRole(Qt::UserRole);
    QTableView* view = makeTable(sorted, box);
    view->setAccessibleName(title); // File > Export names the table by it
    view->setSortingEnabled(true);
    view->sortByColumn(NvprofModel::Time, Qt::DescendingOrder);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    view->setWordWrap(false);
    auto* widths = new ColumnWidthMemory(view, key);
    QObject::connect(sorted, &QAbstractItemModel::modelReset, view, [view, widths] {
        widths->resizeQuietly([view] {
            view->resizeColumnsToContents();
            const int chars = view->fontMetrics().averageCharWidth();
            view->setColumnWidth(NvprofModel::Name, std::min(view->columnWidth(NvprofModel::Name), 60 * chars));
        });
        widths->restore();
    });
    layout->addWidget(view, 1);
    return box;
}

} // namespace

GpuSummaryPanel::GpuSummaryPanel(QWidget* parent)
    : QWidget(parent)
    , m_summary(new GpuSummaryModel(this))
    , m_breakdown(new GpuStepBreakdownModel(this))
    , m_activities(new NvprofModel(NvprofModel::Section::GpuActivities, this))
    , m_apiCalls(new NvprofModel(NvprofModel::Section::ApiCalls, this))
    , m_chart(new GpuStepChart(this))
    , m_window(new QLabel(this))
    , m_analysing(new QLabel(tr("Computing GPU metrics and the step breakdown…"), this))
    , m_noGpu(new QLabel(tr("No GPU activity in this trace."), this))
    , m_tabs(new QTabWidget(this))
{
    m_summaryView = makeTable(m_summary, this);
    m_breakdownView = makeTable(m_breakdown, this);
    m_window->setWordWrap(true);
    m_window->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* gpus = new QWidget(m_tabs);
    auto* gpusLayout = new QVBoxLayout(gpus);
    gpusLayout->setContentsMargins(2, 2, 2, 2);
    gpusLayout->addWidget(m_summaryView, 1);
    gpusLayout->addWidget(m_window);
    m_tabs->addTab(gpus, tr("GPUs"));

    // Side by side: the chart keeps the tab's whole height even in a short dock.
    auto* steps = new QSplitter(Qt::Horizontal, m_tabs);
    steps->addWidget(m_chart);
    steps->addWidget(m_breakdownView);
    steps->setStretchFactor(0, 3);
    steps->setStretchFactor(1, 2);
    m_tabs->addTab(steps, tr("Step Time Breakdown"));

    auto* nvprof = new QSplitter(Qt::Horizontal, m_tabs);
    nvprof->addWidget(makeNvprofSection(tr("GPU activities"), QStringLiteral("gpuActivities"), m_activities, nvprof));
    nvprof->addWidget(makeNvprofSection(tr("API calls"), QStringLiteral("apiCalls"), m_apiCalls, nvprof));
    m_tabs->addTab(nvprof, tr("GPU Activities / API Calls"));

    m_tabs->setDocumentMode(true);
    m_noGpu->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_noGpu->setContentsMargins(6, 6, 6, 6);
    m_pages = new QStackedLayout;
    m_pages->addWidget(m_tabs);
    m_pages->addWidget(m_noGpu);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_analysing->setObjectName(QStringLiteral("analysingLabel"));
    m_analysing->setContentsMargins(6, 2, 6, 2);
    m_analysing->hide();
    layout->addWidget(m_analysing);
    layout->addLayout(m_pages);

    connect(m_chart, &GpuStepChart::stepClicked, this, &GpuSummaryPanel::activateStep);
    connect(m_breakdownView, &QTableView::clicked, this, [this](const QModelIndex& index) { selectStep(index.row()); });
    connect(m_breakdownView, &QTableView::activated, this,
            [this](const QModelIndex& index) { activateStep(index.row()); });
}

bool GpuSummaryPanel::showsNoGpuMessage() const { return m_pages->currentWidget() == m_noGpu; }

QString GpuSummaryPanel::noGpuMessage() const { return m_noGpu->text(); }

void GpuSummaryPanel::setNoGpuMessage(const QString& text) { m_noGpu->setText(text); }

void GpuSummaryPanel::setAnalysing() { m_analysing->show(); }

void GpuSummaryPanel::setReport(const std::shared_ptr<const gpu::GpuReport>& report)
{
    m_analysing->hide();
    m_report = report;
    m_summary->setReport(report);
    m_breakdown->setReport(report);
    m_activities->setReport(report);
    m_apiCalls->setReport(report);
    m_chart->setReport(report);
    const bool noGpu = report && report->analysis.summaries.empty() && report->nvprof.gpuActivities.empty();
    m_pages->setCurrentWidget(noGpu ? static_cast<QWidget*>(m_noGpu) : m_tabs);
    if (!report) {
        m_window->clear();
        return;
    }
    const auto& w = report->analysis.windows;
    QString text = tr("Steps window %1 (%n step(s)), trace window %2.", nullptr, int(w.steps.size()))
                       .arg(QString::fromStdString(formatDuration(w.stepsSpan())),
                            QString::fromStdString(formatDuration(w.globalSpan())));
    if (w.source == facts::StepSource::None)
        text += QLatin1Char(' ')
            + tr("No steps found (no ProfilerStep, step labels or Optimizer.step): one step spans the host events; "
                 "right-click a range ▸ Use as Steps to choose them.");
    else
        text += QLatin1Char(' ') + tr("Steps from %1.").arg(QString::fromStdString(w.sourceName));
    if (report->analysis.summaries.empty())
        text += QLatin1Char(' ') + tr("No kernels with a device: no GPU metrics.");
    m_window->setText(text);
}

void GpuSummaryPanel::setVisibleRange(TimeNs start, TimeNs end) { m_summary->setRange(start, end); }

SliceId GpuSummaryPanel::stepSlice(int row) const
{
    if (!m_report || row < 0)
        return kNoSlice;
    const auto& windows = m_report->analysis.windows.steps;
    if (std::size_t(row) >= windows.size() || windows.size() != m_report->breakdown.steps.size())
        return kNoSlice;
    return windows[std::size_t(row)].slice;
}

void GpuSummaryPanel::selectStep(int row)
{
    if (const SliceId slice = stepSlice(row); slice != kNoSlice)
        Q_EMIT stepSelected(slice);
}

void GpuSummaryPanel::activateStep(int row)
{
    selectStep(row); // into the timeline's Back/Forward history before the zoom
    if (const gpu::StepBreakdownRow* step = m_breakdown->stepRow(row); step && step->end > step->start)
        Q_EMIT stepActivated(step->start, step->end);
}

} // namespace ks
