#include "widgets/criticalpathsegmentsmodel.h"

#include "core/model/time.h"

namespace ks {

void CriticalPathSegmentsModel::setPath(analysis::CriticalPath path, TimeNs stepStart)
{
    beginResetModel();
    m_path = std::move(path);
    m_stepStart = stepStart;
    endResetModel();
}

const analysis::PathSegment* CriticalPathSegmentsModel::segmentAt(int row) const
{
    return row >= 0 && std::size_t(row) < m_path.segments.size() ? &m_path.segments[std::size_t(row)] : nullptr;
}

int CriticalPathSegmentsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_path.segments.size());
}

int CriticalPathSegmentsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CriticalPathSegmentsModel::data(const QModelIndex& index, int role) const
{
    const analysis::PathSegment* s = segmentAt(index.row());
    if (!s)
        return {};
    if (role == Qt::TextAlignmentRole)
        return index.column() >= StartColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    if (role == Qt::ToolTipRole)
        return tr("%1 on %2").arg(QString::fromStdString(s->name), QString::fromStdString(s->track));
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case KindColumn: return QString::fromUtf8(analysis::pathKindName(s->kind).data());
    case NameColumn: return s->name.empty() ? tr("(between ops)") : QString::fromStdString(s->name);
    case StartColumn: return QString::fromStdString(formatDuration(s->start - m_stepStart));
    case DurationColumn: return QString::fromStdString(formatDuration(s->duration));
    case ShareColumn:
        return m_path.length > 0
            ? QStringLiteral("%1 %").arg(100.0 * double(s->duration) / double(m_path.length), 0, 'f', 1)
            : QString();
    default: return {};
    }
}

QVariant CriticalPathSegmentsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KindColumn: return tr("Kind");
    case NameColumn: return tr("On");
    case StartColumn: return tr("At");
    case DurationColumn: return tr("Duration");
    case ShareColumn: return tr("Share");
    default: return {};
    }
}

} // namespace ks
