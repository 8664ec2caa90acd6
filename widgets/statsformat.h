#pragma once
// Cell text and view settings shared by the statistics tables.
#include "core/model/time.h"

#include <QColor>
#include <QList>
#include <QString>

class QAbstractItemModel;
class QTableView;

namespace ks {

QString statsDuration(TimeNs ns); // "1.234 ms"
QString statsPercent(TimeNs part, TimeNs whole); // "12.34%"
QString statsBytes(std::int64_t bytes); // "-4.00 MiB", "512 bytes"

// A warning red or improvement green that stays readable on the application's palette:
// lightened when the base colour is dark.
QColor readableAccent(const QColor& accent);

// The header and the given rows of a table as displayed, one line each: separator ','
// quotes fields as CSV needs; '\t' (TSV) turns tabs and newlines inside fields into spaces.
// Sizes columns to contents from the rows in view and the next few dozen (the largest, once
// sorted) instead of every row: a table's first result measured the text of hundreds of rows
// (kernel names run to 800 characters) and held the GUI thread 30 ms.
void measureColumnsFromLeadingRows(QTableView& view);

QString statsDelimitedText(const QAbstractItemModel& model, const QList<int>& rows, QChar separator);

} // namespace ks
