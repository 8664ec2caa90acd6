#pragma once
// Every table of the window to CSV (RFC 4180: a header line, then one line per row, as the
// table shows its cells), to a file or the clipboard: one helper over QAbstractItemModel, used
// by File ▸ Export and by each table's context menu.
#include <QString>

class QAbstractItemModel;
class QTableView;
class QWidget;

namespace ks {

// The model's top-level rows as CSV, with the header's display texts; a model that pages
// (canFetchMore) is read to its end first.
QString modelToCsv(QAbstractItemModel& model);
// Writes modelToCsv to `path` (UTF-8); false with `error` set when the file cannot be written.
bool writeModelCsv(QAbstractItemModel& model, const QString& path, QString* error = nullptr);
void copyModelCsv(QAbstractItemModel& model);
// Asks for a file name (parent's dialog) and writes the CSV there; false if cancelled or failed.
bool exportModelCsvInteractively(QAbstractItemModel& model, const QString& suggestedName, QWidget* parent);

// Adds "Copy as CSV" and "Export as CSV…" to the view's context menu.
void addTableExportMenu(QTableView* view, const QString& suggestedName);

} // namespace ks
