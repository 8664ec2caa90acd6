#pragma once
// One table of a before/after comparison (categories, operators, kernels, copies):
// BASE / NEW / Δ / Δ% columns over analysis::DiffRow. Numbers sort numerically; the Δ
// column sorts by |Δ|, so a descending sort puts the largest changes first.
#include "core/analysis/diff.h"

#include <QAbstractTableModel>

#include <functional>
#include <vector>

namespace ks {

class DiffTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Kind { Categories, Operators, Kernels, Memcpy };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit DiffTableModel(Kind kind, QObject* parent = nullptr);

    Kind kind() const { return m_kind; }
    void setRows(std::vector<analysis::DiffRow> rows);
    const analysis::DiffRow& diffRow(int row) const { return m_rows[std::size_t(row)]; }
    // The column holding Δ of the table's main time (the default sort).
    int deltaColumn() const { return m_deltaColumn; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    enum class Format { Text, Count, Duration, Delta, Percent, Bytes };
    struct Column {
        QString header;
        Format format;
        std::function<double(const analysis::DiffRow&)> value; // unused for Text
    };

    Kind m_kind;
    std::vector<Column> m_columns;
    std::vector<analysis::DiffRow> m_rows;
    int m_deltaColumn = 0;
};

} // namespace ks
