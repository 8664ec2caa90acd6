#include "widgets/memorychart.h"
#include "widgets/plotexport.h"

#include "widgets/plotpalette.h"

#include <QLocale>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

const QColor kAllocatedColor(60, 120, 190);
const QColor kReservedColor(150, 150, 150);
const QColor kPeakColor(200, 60, 40);

} // namespace

MemoryChart::MemoryChart(QWidget* parent)
    : QCustomPlot(parent)
    , m_allocated(addGraph())
    , m_reserved(addGraph())
    , m_peakLine(new QCPItemStraightLine(this))
    , m_peakLabel(new QCPItemText(this))
    , m_chosenLine(new QCPItemStraightLine(this))
{
    addPlotExportMenu(this, QStringLiteral("memory")); // PNG, SVG, PDF (issue 41)
    setMinimumSize(fontMetrics().averageCharWidth() * 40, fontMetrics().height() * 8);
    m_reserved->setName(tr("Reserved"));
    m_reserved->setPen(QPen(kReservedColor, 1.5));
    m_reserved->setLineStyle(QCPGraph::lsStepLeft);
    m_allocated->setName(tr("Allocated"));
    m_allocated->setPen(QPen(kAllocatedColor, 1.5));
    m_allocated->setBrush(QColor(kAllocatedColor.red(), kAllocatedColor.green(), kAllocatedColor.blue(), 50));
    m_allocated->setLineStyle(QCPGraph::lsStepLeft);
    m_peakLine->setPen(QPen(kPeakColor, 1, Qt::DashLine));
    m_peakLabel->setColor(kPeakColor);
    m_peakLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_peakLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_chosenLine->setPen(QPen(QColor(230, 160, 0), 1.5));
    m_chosenLine->setVisible(false);
    xAxis->setLabel(tr("Time (ms)"));
    legend->setVisible(true);
    legend->setFont(font());
    // Beside the curves (the bottom dock is wide and short): inside, it hid the reserved line
    // that runs along their top.
    placeLegendBeside(*this);
    followPalette(*this);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeDrag(Qt::Horizontal);
    axisRect()->setRangeZoom(Qt::Horizontal);
    setMouseTracking(true);
    connect(this, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        if (!m_device || !axisRect()->rect().contains(event->pos())) {
            QToolTip::hideText();
            return;
        }
        QToolTip::showText(event->globalPosition().toPoint(), toolTipAt(timeOf(xAxis->pixelToCoord(event->pos().x()))),
                           this);
    });
    connect(this, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* event) {
        if (m_device && event->button() == Qt::LeftButton && axisRect()->rect().contains(event->pos()))
            Q_EMIT timeClicked(timeOf(xAxis->pixelToCoord(event->pos().x())));
    });
}

QString MemoryChart::unitName() const { return m_unit >= 1e9 ? QStringLiteral("GB") : QStringLiteral("MB"); }

void MemoryChart::setDevice(const analysis::MemoryReport* report, const analysis::DeviceMemory* device)
{
    m_report = report;
    m_device = report ? device : nullptr;
    m_origin = report ? report->facts->trace->startTime() : 0;
    QVector<double> keys, allocated, reserved;
    double top = 0;
    if (m_device) {
        for (const std::uint32_t i : m_device->events) {
            const MemoryEvent& e = m_report->events()[i];
            if (!e.hasTotals)
                continue;
            keys.push_back(double(e.time - m_origin) / 1e6);
            allocated.push_back(double(e.totalAllocated));
            reserved.push_back(double(e.totalReserved));
            top = std::max({top, double(e.totalAllocated), double(e.totalReserved)});
        }
    }
    // One unit for the whole axis: GB from a gigabyte up, else MB.
    m_unit = top >= 1e9 ? 1e9 : 1e6;
    for (double& v : allocated)
        v /= m_unit;
    for (double& v : reserved)
        v /= m_unit;
    m_allocated->setData(keys, allocated, true);
    m_reserved->setData(keys, reserved, true);
    // Short: at 1280x720 the bottom dock leaves the axis ~90 px, which "GPU0 memory (MB)" overran.
    yAxis->setLabel(m_device ? tr("%1 (%2)").arg(QString::fromStdString(m_device->name), unitName()) : QString());
    const bool peak = m_device && m_device->peakEvent != kNoIndex;
    m_peakLine->setVisible(peak);
    m_peakLabel->setVisible(peak);
    if (peak) {
        const double x = double(m_device->peakTime - m_origin) / 1e6;
        m_peakLine->point1->setCoords(x, 0);
        m_peakLine->point2->setCoords(x, 1);
        m_peakLabel->position->setCoords(x, 0.02);
        m_peakLabel->setText(
            tr(" peak %1 %2").arg(double(m_device->peakAllocated) / m_unit, 0, 'f', 2).arg(unitName()));
    }
    m_chosenLine->setVisible(false);
    rescaleAxes();
    yAxis->setRangeLower(0);
    yAxis->setRangeUpper(std::max(top / m_unit * 1.1, 1e-3));
    replot(rpQueuedReplot);
}

void MemoryChart::setChosenTime(TimeNs time)
{
    m_chosenLine->setVisible(m_device && time >= 0);
    const double x = double(time - m_origin) / 1e6;
    m_chosenLine->point1->setCoords(x, 0);
    m_chosenLine->point2->setCoords(x, 1);
    replot(rpQueuedReplot);
}

QString MemoryChart::toolTipAt(TimeNs time) const
{
    if (!m_device)
        return {};
    const std::uint32_t k = m_device->positionAt(m_report->events(), time);
    const QString at = QString::fromStdString(formatDuration(time - m_origin));
    if (k == kNoIndex)
        return tr("%1: before the first event").arg(at);
    const MemoryEvent& e = m_report->events()[m_device->events[k]];
    const QLocale locale;
    return tr("<b>%1</b> at %2<br>Allocated: %3<br>Reserved: %4")
        .arg(QString::fromStdString(m_device->name), at,
             locale.formattedDataSize(e.totalAllocated, 2, QLocale::DataSizeSIFormat),
             locale.formattedDataSize(e.totalReserved, 2, QLocale::DataSizeSIFormat));
}

} // namespace ks
