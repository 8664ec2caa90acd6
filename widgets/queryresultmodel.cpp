#include "widgets/queryresultmodel.h"

#include <QColor>
#include <QPalette>

namespace ks {

void QueryResultModel::reset(QStringList columns)
{
    beginResetModel();
    m_columns = std::move(columns);
    m_rows.clear();
    m_atEnd = false;
    m_fetching = true; // the first page is on its way
    endResetModel();
}

void QueryResultModel::appendRows(std::vector<QVariantList> rows, bool atEnd)
{
    m_fetching = false;
    m_atEnd = atEnd;
    if (rows.empty())
        return;
    const int first = int(m_rows.size());
    beginInsertRows({}, first, first + int(rows.size()) - 1);
    for (auto& row : rows)
        m_rows.push_back(std::move(row));
    endInsertRows();
}

void QueryResultModel::finish()
{
    m_fetching = false;
    m_atEnd = true;
}

int QueryResultModel::columnNamed(const QString& name) const
{
    for (int c = 0; c < m_columns.size(); ++c) {
        if (m_columns[c].compare(name, Qt::CaseInsensitive) == 0)
            return c;
    }
    return -1;
}

QVariant QueryResultModel::value(int row, int column) const
{
    if (row < 0 || row >= int(m_rows.size()) || column < 0 || column >= m_rows[std::size_t(row)].size())
        return {};
    return m_rows[std::size_t(row)][column];
}

int QueryResultModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int QueryResultModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant QueryResultModel::data(const QModelIndex& index, int role) const
{
    const QVariant v = value(index.row(), index.column());
    switch (role) {
    case Qt::DisplayRole: return v.isNull() ? QVariant(QStringLiteral("NULL")) : v;
    case Qt::ForegroundRole: return v.isNull() ? QVariant(QPalette().color(QPalette::PlaceholderText)) : QVariant();
    case Qt::TextAlignmentRole:
        return v.typeId() == QMetaType::LongLong || v.typeId() == QMetaType::Double
            ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
            : QVariant();
    default: return {};
    }
}

QVariant QueryResultModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Horizontal)
        return section >= 0 && section < m_columns.size() ? QVariant(m_columns[section]) : QVariant();
    return section + 1;
}

bool QueryResultModel::canFetchMore(const QModelIndex& parent) const
{
    return !parent.isValid() && !m_atEnd && !m_fetching;
}

void QueryResultModel::fetchMore(const QModelIndex& parent)
{
    if (!canFetchMore(parent))
        return;
    m_fetching = true;
    Q_EMIT moreRowsWanted();
}

} // namespace ks
