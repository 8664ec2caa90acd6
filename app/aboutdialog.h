#pragma once

class QWidget;

namespace ks {

// Help ▸ About: Kinetoscope's version, the Qt, QCustomPlot and CUPTI versions it was built
// with, and where the collector's injection library is (or why recording is unavailable).
void showAboutDialog(QWidget* parent);

} // namespace ks
