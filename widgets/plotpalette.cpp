#include "widgets/plotpalette.h"

namespace ks {

namespace {

void applyPalette(QCustomPlot& plot)
{
    const QPalette& p = plot.palette();
    plot.setBackground(p.brush(QPalette::Base));
    plot.legend->setBrush(p.brush(QPalette::Base));
    plot.legend->setBorderPen(Qt::NoPen);
    plot.legend->setTextColor(p.color(QPalette::Text));
    for (QCPAxis* axis : {plot.xAxis, plot.yAxis}) {
        const QPen pen(p.color(QPalette::Text));
        axis->setBasePen(pen);
        axis->setTickPen(pen);
        axis->setSubTickPen(pen);
        axis->setTickLabelColor(p.color(QPalette::Text));
        axis->setLabelColor(p.color(QPalette::Text));
        axis->grid()->setPen(QPen(p.color(QPalette::Mid), 0, Qt::DotLine));
    }
}

// Re-applies the palette to the plot it is installed on when that changes.
class PaletteFollower : public QObject {
public:
    PaletteFollower(QCustomPlot& plot, std::function<void(const QPalette&)> alsoApply)
        : QObject(&plot)
        , m_alsoApply(std::move(alsoApply))
    {
    }

    void apply(QCustomPlot& plot) const
    {
        applyPalette(plot);
        if (m_alsoApply)
            m_alsoApply(plot.palette());
    }

    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
            auto& plot = static_cast<QCustomPlot&>(*watched);
            apply(plot);
            plot.replot(QCustomPlot::rpQueuedReplot);
        }
        return false;
    }

private:
    std::function<void(const QPalette&)> m_alsoApply;
};

} // namespace

void followPalette(QCustomPlot& plot, std::function<void(const QPalette&)> alsoApply)
{
    auto* follower = new PaletteFollower(plot, std::move(alsoApply));
    follower->apply(plot);
    plot.installEventFilter(follower);
}

// The legend stays on its layer: setLayer() again would move it after its items there, and its
// background would then hide them.
void placeLegendBeside(QCustomPlot& plot)
{
    plot.axisRect()->insetLayout()->take(plot.legend);
    // A column of its own, the legend at its top: an empty cell below takes the rest, so that
    // the entries keep their height instead of spreading over the plot's.
    auto* column = new QCPLayoutGrid;
    plot.plotLayout()->addElement(0, 1, column);
    plot.plotLayout()->setColumnStretchFactor(1, 0.001); // as narrow as its entries
    column->addElement(0, 0, plot.legend);
    column->expandTo(2, 1);
    column->setRowStretchFactor(0, 0.001);
}

} // namespace ks
