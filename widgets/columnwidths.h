#pragma once
// A table's column widths as the user leaves them, kept in QSettings under
// "columnWidths/<key>" by column title (the columns a table shows change with its options),
// and given back to the next table of that key. Widths the program sets itself (fitting the
// columns to their contents) go through resizeQuietly() and are not remembered.
#include <QObject>
#include <QString>

#include <functional>

class QTableView;

namespace ks {

class ColumnWidthMemory : public QObject {
    Q_OBJECT
public:
    // Owned by `view`.
    ColumnWidthMemory(QTableView* view, QString key);

    // Applies the remembered widths to the columns shown; false when none is remembered.
    bool restore();
    // Runs `resize` (the program's own sizing) without remembering what it sets.
    void resizeQuietly(const std::function<void()>& resize);

private:
    void remember(int section, int width);

    QTableView* m_view;
    QString m_key;
    bool m_quiet = false;
};

} // namespace ks
