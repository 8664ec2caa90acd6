#include "widgets/plotpalette.h"

namespace ks {

void applyPlotPalette(QCustomPlot& plot)
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

} // namespace ks
