#pragma once
// The marks of the Notes dock as a table: Start and Duration (relative to the trace start,
// like the ruler) and the Note, which is edited in place. Sorted by start as they come.
#include "core/notes/tracenotes.h"

#include <QAbstractTableModel>

namespace ks {

class NotesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { StartColumn, DurationColumn, NoteColumn, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    // `origin`: the trace's start time, which the Start column counts from.
    void setMarks(std::vector<notes::Mark> marks, TimeNs origin);
    const std::vector<notes::Mark>& marks() const { return m_marks; }
    // Inserts at its place by start; returns its row.
    int addMark(notes::Mark mark);
    void removeMark(int row);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    // A mark was added, removed or its note edited.
    void marksEdited();

private:
    std::vector<notes::Mark> m_marks;
    TimeNs m_origin = 0;
};

} // namespace ks
