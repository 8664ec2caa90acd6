#pragma once
// Every chart (a QCustomPlot: memory curves, roofline, GPU step chart, GPU metric tracks) to
// PNG, SVG or PDF (issue 41), at the size it has on screen, from its context menu.
#include <QSize>
#include <QString>

class QCustomPlot;

namespace ks {

// The format follows the suffix: .svg (QSvgGenerator), .pdf, else PNG. An empty `size`: the
// plot's own. False with `error` set when the file cannot be written.
bool savePlot(QCustomPlot& plot, const QString& path, QSize size = {}, QString* error = nullptr);
// Adds "Export as PNG… / SVG… / PDF…" to the plot's context menu; `suggestedName` names the file.
void addPlotExportMenu(QCustomPlot* plot, const QString& suggestedName);

} // namespace ks
