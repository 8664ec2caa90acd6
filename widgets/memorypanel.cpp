#include "widgets/memorypanel.h"

#include "widgets/jobtracker.h"
#include "widgets/liveallocationsmodel.h"
#include "widgets/memorychart.h"
#include "widgets/operatormemorymodel.h"
#include "widgets/timelinewidget.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <utility>

namespace ks {

namespace {

QTableView* makeTable(QAbstractItemModel* model, int sortRole, QWidget* parent)
{
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(sortRole);
    auto* view = new QTableView(parent);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->verticalHeader()->hide();
    view->setWordWrap(false);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    return view;
}

} // namespace

MemoryPanel::MemoryPanel(TimelineWidget* timeline, QWidget* parent)
    : QWidget(parent)
    , m_timeline(timeline)
    , m_jobs(new JobTracker(this, sharedAnalysisPool()))
    , m_devices(new QComboBox(this))
    , m_peakButton(new QPushButton(tr("Go to peak"), this))
    , m_summary(new QLabel(this))
    , m_chart(new MemoryChart(this))
    , m_tabs(new QTabWidget(this))
    , m_liveModel(new LiveAllocationsModel(this))
    , m_liveView(makeTable(m_liveModel, LiveAllocationsModel::kSortRole, this))
    , m_operatorModel(new OperatorMemoryModel(this))
    , m_operatorView(makeTable(m_operatorModel, OperatorMemoryModel::kSortRole, this))
{
    m_peakButton->setToolTip(tr("List the allocations alive at this device's peak"));
    m_chart->setMinimumWidth(fontMetrics().averageCharWidth() * 70); // the curves need room beside the table
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Wraps: on one line the peak's sentence set the whole window's minimum width (1,216 px on
    // train_baseline), wider than a small screen.
    m_summary->setWordWrap(true);
    m_liveView->horizontalHeader()->setStretchLastSection(true);
    // Without with_stack the stack column would be an empty stretch of the table.
    connect(m_liveModel, &QAbstractItemModel::modelReset, this, [this] {
        m_liveView->setColumnHidden(LiveAllocationsModel::StackColumn, !m_liveModel->hasPythonStacks());
    });
    m_liveView->setToolTip(tr("Select a row to select the op that allocated it on the timeline"));
    m_tabs->addTab(m_liveView, tr("Alive"));
    m_tabs->addTab(m_operatorView, tr("Operator memory"));
    m_operatorView->sortByColumn(OperatorMemoryModel::SelfAllocationSizeColumn, Qt::DescendingOrder);

    auto* tools = new QHBoxLayout;
    tools->addWidget(new QLabel(tr("Device:"), this));
    tools->addWidget(m_devices);
    tools->addWidget(m_peakButton);
    tools->addWidget(m_summary, 1);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_chart);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(tools);
    layout->addWidget(splitter, 1);

    connect(m_devices, &QComboBox::currentIndexChanged, this, &MemoryPanel::setDevice);
    connect(m_peakButton, &QPushButton::clicked, this, &MemoryPanel::goToPeak);
    connect(m_chart, &MemoryChart::timeClicked, this, &MemoryPanel::showTime);
    connect(m_liveView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const auto* proxy = static_cast<const QSortFilterProxyModel*>(m_liveView->model());
                selectOpOfRow(proxy->mapToSource(current).row());
            });
    if (timeline) {
        connect(timeline, &TimelineWidget::traceChanged, this, &MemoryPanel::analyze);
        // A click on a member's plots, in its time: shown once this panel shows that member
        // (the dock's picker switches to it).
        connect(timeline, &TimelineWidget::plotTimeClicked, this, [this](std::uint32_t trace, TimeNs time) {
            m_clickedTime = std::pair(trace, time);
            if (trace != m_member)
                Q_EMIT memberRequested(trace);
            showClickedTime();
        });
        connect(timeline, &TimelineWidget::instantSelected, this, [this](std::uint32_t instant) {
            // An instant of the trace of the selection: only this member's are ours.
            const std::shared_ptr<const Trace> selected = m_timeline->traceAt(m_timeline->currentTrace());
            if (m_data.report && selected == m_data.report->facts->trace && instant < selected->instants().size())
                showTime(selected->instants().time[instant]);
        });
        if (timeline->trace())
            analyze(timeline->trace());
    }
    updateSummary();
}

MemoryPanel::~MemoryPanel() = default;

void MemoryPanel::analyze(const std::shared_ptr<const Trace>& trace)
{
    m_member = 0; // new traces: the primary one first
    if (!trace) {
        m_jobs->cancel();
        apply({});
        return;
    }
    analyzeMember();
}

void MemoryPanel::setMember(std::uint32_t member)
{
    if (member == m_member || !m_timeline || member >= m_timeline->traceCount())
        return;
    m_member = member;
    analyzeMember();
}

void MemoryPanel::analyzeMember()
{
    m_summary->setText(tr("Analysing memory…"));
    m_jobs->start(
        JobTracker::letFinishIf(m_timeline->showsNewerSnapshot()),
        // The member's facts as its other analyses build them (its steps), so they are shared.
        [trace = m_timeline->traceAt(m_member), rules = m_timeline->stepRules(m_member)] {
            MemoryViewData data;
            auto report = std::make_shared<analysis::MemoryReport>(
                analysis::makeMemoryReport(facts::sharedTraceFacts(trace, rules)));
            data.tables = analysis::makeOperatorMemoryTables(*report);
            data.report = std::move(report);
            return data;
        },
        [this](MemoryViewData data) { apply(std::move(data)); },
        [this](const QString& error) {
            apply({});
            m_summary->setText(tr("Memory could not be analysed: %1").arg(error));
        });
}

void MemoryPanel::apply(MemoryViewData data)
{
    m_data = std::move(data);
    const QSignalBlocker blocker(m_devices);
    m_devices->clear();
    if (m_data.report) {
        int preferred = 0; // a GPU when there is one, as the plugin does
        for (const analysis::DeviceMemory& device : m_data.report->devices) {
            if (!device.isHost && preferred == 0 && m_devices->count() > 0)
                preferred = m_devices->count();
            m_devices->addItem(QString::fromStdString(device.name));
        }
        m_devices->setCurrentIndex(preferred);
    }
    setDevice(m_devices->currentIndex());
    showClickedTime();
    Q_EMIT reportReady();
}

void MemoryPanel::showClickedTime()
{
    if (!m_clickedTime || m_clickedTime->first != m_member || !m_data.report || !m_timeline
        || m_data.report->facts->trace != m_timeline->traceAt(m_member))
        return; // its member's report is still to come
    showTime(std::exchange(m_clickedTime, std::nullopt)->second);
}

const analysis::DeviceMemory* MemoryPanel::currentDevice() const
{
    const int index = m_devices->currentIndex();
    if (!m_data.report || index < 0 || std::size_t(index) >= m_data.report->devices.size())
        return nullptr;
    return &m_data.report->devices[std::size_t(index)];
}

void MemoryPanel::setDevice(int index)
{
    const analysis::DeviceMemory* device = currentDevice();
    m_chart->setDevice(m_data.report.get(), device);
    m_operatorModel->setTable(device && std::size_t(index) < m_data.tables.size() ? m_data.tables[std::size_t(index)]
                                                                                  : analysis::OperatorMemoryTable{});
    m_peakButton->setEnabled(device && device->peakEvent != kNoIndex);
    goToPeak();
}

void MemoryPanel::goToPeak()
{
    const analysis::DeviceMemory* device = currentDevice();
    if (!device || device->peakEvent == kNoIndex) {
        m_liveModel->clear();
        m_chart->setChosenTime(-1);
    } else {
        m_liveModel->setPeak(m_data.report, device);
        m_chart->setChosenTime(device->peakTime);
    }
    m_tabs->setCurrentWidget(m_liveView);
    updateSummary();
}

void MemoryPanel::showTime(TimeNs time)
{
    const analysis::DeviceMemory* device = currentDevice();
    if (!device)
        return;
    m_liveModel->setTime(m_data.report, device, time);
    m_chart->setChosenTime(time);
    m_tabs->setCurrentWidget(m_liveView);
    updateSummary();
}

void MemoryPanel::selectOpOfRow(int row)
{
    const SliceId op = m_liveModel->opAt(row);
    if (m_timeline && op != kNoSlice)
        m_timeline->revealTraceSlice({m_member, op});
}

void MemoryPanel::updateSummary()
{
    const analysis::DeviceMemory* device = currentDevice();
    if (!device) {
        m_summary->setText(m_data.report ? tr("No [memory] events: record with profile_memory=True") : QString());
        return;
    }
    const QLocale locale;
    const TimeNs origin = m_data.report->facts->trace->startTime();
    QString text = tr("Peak %1 allocated at %2, %3 reserved · %4 alive at %5 (%6) · %7 never freed")
                       .arg(locale.formattedDataSize(device->peakAllocated, 2, QLocale::DataSizeSIFormat),
                            QString::fromStdString(formatDuration(device->peakTime - origin)),
                            locale.formattedDataSize(device->peakReserved, 2, QLocale::DataSizeSIFormat))
                       .arg(m_liveModel->rowCount())
                       .arg(QString::fromStdString(formatDuration(m_liveModel->time() - origin)),
                            locale.formattedDataSize(m_liveModel->totalBytes(), 2, QLocale::DataSizeSIFormat))
                       .arg(device->neverFreed);
    if (const std::uint64_t anomalies = device->anomalies.total())
        text += tr(" · %1 anomalies (unmatched frees, reused addresses…)").arg(anomalies);
    m_summary->setText(text);
}

} // namespace ks
