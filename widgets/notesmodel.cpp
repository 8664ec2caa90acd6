#include "widgets/notesmodel.h"

#include "core/model/time.h"

#include <algorithm>

namespace ks {

namespace {

QString qstr(const std::string& s) { return QString::fromStdString(s); }

bool byStart(const notes::Mark& a, const notes::Mark& b) { return a.start < b.start; }

} // namespace

void NotesModel::setMarks(std::vector<notes::Mark> marks, TimeNs origin)
{
    beginResetModel();
    m_marks = std::move(marks);
    std::stable_sort(m_marks.begin(), m_marks.end(), byStart);
    m_origin = origin;
    endResetModel();
}

int NotesModel::addMark(notes::Mark mark)
{
    const auto at = std::upper_bound(m_marks.begin(), m_marks.end(), mark, byStart);
    const int row = int(at - m_marks.begin());
    beginInsertRows({}, row, row);
    m_marks.insert(at, std::move(mark));
    endInsertRows();
    Q_EMIT marksEdited();
    return row;
}

void NotesModel::removeMark(int row)
{
    if (row < 0 || row >= rowCount())
        return;
    beginRemoveRows({}, row, row);
    m_marks.erase(m_marks.begin() + row);
    endRemoveRows();
    Q_EMIT marksEdited();
}

int NotesModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_marks.size()); }

int NotesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant NotesModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const notes::Mark& mark = m_marks[std::size_t(index.row())];
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case StartColumn: return qstr(formatDuration(mark.start - m_origin));
        case DurationColumn: return mark.isRange() ? qstr(formatDuration(mark.end - mark.start)) : QString();
        case NoteColumn: return qstr(mark.note);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == NoteColumn)
        return tr("Double-click to edit the note");
    return {};
}

bool NotesModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !index.isValid() || index.column() != NoteColumn || index.row() >= rowCount())
        return false;
    std::string note = value.toString().toStdString();
    if (m_marks[std::size_t(index.row())].note == note)
        return false;
    m_marks[std::size_t(index.row())].note = std::move(note);
    Q_EMIT dataChanged(index, index);
    Q_EMIT marksEdited();
    return true;
}

Qt::ItemFlags NotesModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags flags = QAbstractTableModel::flags(index);
    if (index.column() == NoteColumn)
        flags |= Qt::ItemIsEditable;
    return flags;
}

QVariant NotesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case StartColumn: return tr("Start");
    case DurationColumn: return tr("Duration");
    case NoteColumn: return tr("Note");
    default: return {};
    }
}

} // namespace ks
