#pragma once
// File ▸ Export (issue 41): the timeline as PNG or SVG at a chosen size, and every table of
// every dock as CSV (a dock with several tables lists each under its own name).
// The charts export from their own context menu (widgets/plotexport.h). GUI thread only.
class QMainWindow;
class QMenu;
class QString;
class QTableView;

namespace ks {

class TimelineWidget;

// Fills `menu` each time it is about to show (the docks' tables change with the trace).
void installExportMenu(QMenu& menu, QMainWindow& window, TimelineWidget& timeline);
// Asks for a width, a height and a file, and writes the timeline there as `format` (PNG, SVG).
void exportTimelineInteractively(TimelineWidget& timeline, const QString& format, QMainWindow& window);
// "Operators"; where the dock holds several tables, "GPU Summary (<the view's accessible
// name>)" or else "Memory (<its first two column headers>)".
QString exportedTableTitle(const QString& dockTitle, const QTableView& view, bool severalInDock);

} // namespace ks
