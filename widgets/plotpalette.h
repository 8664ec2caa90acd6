#pragma once
// QCustomPlot draws black on white by default; the charts take their colours from the
// palette instead (a dark theme gets light axes on a dark background), and share the legend's
// place.
#include <qcustomplot.h>

#include <functional>

namespace ks {

// The plot's background, legend, axes and grid from its palette, now and again (with a
// queued replot) whenever its palette or style changes (View ▸ Theme); `alsoApply` colours
// the plot's own items (graphs, labels) from the palette at the same times.
void followPalette(QCustomPlot& plot, std::function<void(const QPalette&)> alsoApply = {});

// The legend in a narrow column beside the axis rect, not inside it: it never covers data.
void placeLegendBeside(QCustomPlot& plot);

} // namespace ks
