#include "widgets/rooflinepanel.h"

#include "widgets/jobtracker.h"
#include "widgets/peaksettings.h"
#include "widgets/rooflineplot.h"
#include "widgets/timelinewidget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QShowEvent>
#include <QVBoxLayout>

namespace ks {

namespace {
// The job's result: the points and the costs they came from (kept for the next peaks).
struct RooflineResult {
    std::shared_ptr<const analysis::Roofline> roofline;
    std::shared_ptr<const analysis::OpCosts> costs;
};
} // namespace

RooflinePanel::RooflinePanel(TimelineWidget* timeline, QWidget* parent)
    : QWidget(parent)
    , m_timeline(timeline)
    , m_jobs(new JobTracker(this, sharedAnalysisPool()))
    , m_plot(new RooflinePlot(this))
    , m_device(new QLabel(this))
    , m_tflops(new QLineEdit(this))
    , m_tbps(new QLineEdit(this))
{
    const PeakSettings settings = PeakSettings::load();
    m_tflops->setText(settings.tflops);
    m_tflops->setPlaceholderText(tr("datasheet"));
    m_tflops->setToolTip(tr("Compute roofs in TFLOP/s: one number for every precision, or "
                            "fp64=…,fp32=…,tf32=…,bf16=…,fp8=… (empty: the datasheet's)"));
    m_tbps->setText(settings.tbps);
    m_tbps->setPlaceholderText(tr("datasheet"));
    m_tbps->setToolTip(tr("Memory roof in TB/s (empty: the datasheet's)"));
    auto* applyButton = new QPushButton(tr("Apply"), this);
    m_device->setWordWrap(true);
    m_device->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* peaks = new QHBoxLayout;
    peaks->addWidget(new QLabel(tr("Peak TFLOP/s:"), this));
    peaks->addWidget(m_tflops, 2);
    peaks->addWidget(new QLabel(tr("TB/s:"), this));
    peaks->addWidget(m_tbps, 1);
    peaks->addWidget(applyButton);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_device);
    layout->addWidget(m_plot, 1);
    layout->addLayout(peaks);

    connect(applyButton, &QPushButton::clicked, this, &RooflinePanel::applyPeaks);
    connect(m_tflops, &QLineEdit::returnPressed, this, &RooflinePanel::applyPeaks);
    connect(m_tbps, &QLineEdit::returnPressed, this, &RooflinePanel::applyPeaks);
    connect(m_plot, &RooflinePlot::pointClicked, this, &RooflinePanel::selectPoint);
    if (timeline) {
        connect(timeline, &TimelineWidget::traceChanged, this, &RooflinePanel::analyze);
        if (timeline->trace())
            analyze(timeline->trace());
    }
    if (!timeline || !timeline->trace())
        m_device->setText(tr("No trace"));
}

RooflinePanel::~RooflinePanel() = default;

void RooflinePanel::applyPeaks()
{
    PeakSettings{m_tflops->text(), m_tbps->text()}.save();
    if (m_trace)
        analyze(m_trace);
}

void RooflinePanel::analyze(std::shared_ptr<const Trace> trace)
{
    if (trace != m_trace)
        m_costs = nullptr;
    m_trace = trace;
    if (!trace) {
        m_jobs->cancel();
        apply(std::make_shared<analysis::Roofline>());
        m_device->setText(tr("No trace"));
        return;
    }
    if (!isVisible()) {
        m_jobs->cancel();
        m_stale = true;
        m_device->setText(tr("Computing the roofline…"));
        return;
    }
    m_stale = false;
    m_device->setText(tr("Computing the roofline…"));
    const auto overrides = PeakSettings::load().overrides();
    m_jobs->start(
        JobTracker::letFinishIf(m_timeline && m_timeline->showsNewerSnapshot()),
        [trace, costs = m_costs, overrides]() -> RooflineResult {
            const auto facts = facts::sharedTraceFacts(trace);
            auto read = costs ? costs : std::make_shared<const analysis::OpCosts>(analysis::OpCosts::ofTrace(*trace));
            return {std::make_shared<const analysis::Roofline>(analysis::computeRoofline(*facts, *read, overrides)),
                    read};
        },
        [this, trace](RooflineResult result) {
            // A live recording's older snapshot may deliver after a newer one came: its op
            // costs (by slice id) are that snapshot's, never kept for another.
            if (trace == m_trace)
                m_costs = std::move(result.costs);
            apply(std::move(result.roofline));
        },
        [this](const QString& error) { m_device->setText(tr("The roofline could not be computed: %1").arg(error)); });
}

void RooflinePanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale)
        analyze(m_trace);
}

void RooflinePanel::apply(std::shared_ptr<const analysis::Roofline> roofline)
{
    if (!roofline)
        roofline = std::make_shared<analysis::Roofline>();
    const analysis::DevicePeaks& peaks = roofline->peaks;
    QString device = peaks.name.empty() ? tr("Unknown GPU") : QString::fromStdString(peaks.name);
    device += peaks.source.empty() ? tr(": no datasheet entry, enter its peaks below")
                                   : tr(" (%1)").arg(QString::fromStdString(peaks.source));
    if (m_trace && roofline->points.empty())
        device += tr("\nNo op with FLOPs and device time: record with record_shapes=True (docs/roofline.md)");
    m_device->setText(device);
    m_plot->setRoofline(*roofline);
    Q_EMIT rooflineReady(int(roofline->points.size()));
}

void RooflinePanel::selectPoint(int point)
{
    const auto& points = m_plot->roofline().points;
    if (!m_timeline || point < 0 || std::size_t(point) >= points.size() || points[std::size_t(point)].kernels.empty())
        return;
    const auto& kernels = points[std::size_t(point)].kernels;
    m_timeline->setHighlightedSlices(kernels);
    m_timeline->revealSlice(kernels.front());
}

} // namespace ks
