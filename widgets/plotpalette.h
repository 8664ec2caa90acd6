#pragma once
// QCustomPlot draws black on white by default; the charts take their colours from the
// palette instead (a dark theme gets light axes on a dark background).
#include <qcustomplot.h>

namespace ks {

void applyPlotPalette(QCustomPlot& plot);

} // namespace ks
