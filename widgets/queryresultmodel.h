#pragma once
// The rows of a query, a page at a time: the view asks for more (canFetchMore/fetchMore) as
// it scrolls, the Query dock reads the next page off the GUI thread and appends it, so a
// result of millions of rows holds only what was scrolled through.
#include <QAbstractTableModel>
#include <QStringList>
#include <QVariant>

#include <vector>

namespace ks {

class QueryResultModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;

    // A new result: its columns and no rows yet.
    void reset(QStringList columns);
    // The next page; `atEnd`: the query has no more rows.
    void appendRows(std::vector<QVariantList> rows, bool atEnd);
    // No more pages will come (the query failed or was stopped).
    void finish();

    const QStringList& columns() const { return m_columns; }
    // The index of the column named `name` (case-insensitive), or -1.
    int columnNamed(const QString& name) const;
    QVariant value(int row, int column) const;
    bool atEnd() const { return m_atEnd; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;

Q_SIGNALS:
    // The view scrolled to the end of what is loaded: read the next page.
    void moreRowsWanted();

private:
    QStringList m_columns;
    std::vector<QVariantList> m_rows;
    bool m_atEnd = true;
    bool m_fetching = false; // a page was asked for and has not come yet
};

} // namespace ks
