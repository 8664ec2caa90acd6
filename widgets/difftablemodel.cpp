#include "widgets/difftablemodel.h"

#include "widgets/statsformat.h"

#include <QBrush>
#include <QColor>

#include <cmath>

namespace ks {

namespace {

using DiffRow = analysis::DiffRow;

QString signedDuration(double ns)
{
    const QString text = statsDuration(TimeNs(std::llround(std::abs(ns))));
    return ns > 0 ? QStringLiteral("+") + text : ns < 0 ? QStringLiteral("−") + text : text;
}

} // namespace

DiffTableModel::DiffTableModel(Kind kind, QObject* parent)
    : QAbstractTableModel(parent)
    , m_kind(kind)
{
    const auto base = [](const DiffRow& r) { return r.baseNs; };
    const auto neu = [](const DiffRow& r) { return r.newNs; };
    const auto delta = [](const DiffRow& r) { return r.deltaNs(); };
    const auto percent = [](const DiffRow& r) { return r.deltaPercent(); };
    const auto baseCount = [](const DiffRow& r) { return double(r.baseCount); };
    const auto newCount = [](const DiffRow& r) { return double(r.newCount); };
    switch (kind) {
    case Kind::Categories:
        m_columns = {{tr("Category"), Format::Text, {}},
                     {tr("BASE / step"), Format::Duration, base},
                     {tr("NEW / step"), Format::Duration, neu},
                     {tr("Δ"), Format::Delta, delta},
                     {tr("Δ%"), Format::Percent, percent}};
        m_deltaColumn = 3;
        break;
    case Kind::Operators:
        m_columns = {{tr("Operator"), Format::Text, {}},
                     {tr("Calls BASE"), Format::Count, baseCount},
                     {tr("Calls NEW"), Format::Count, newCount},
                     {tr("Self CPU BASE"), Format::Duration, base},
                     {tr("Self CPU NEW"), Format::Duration, neu},
                     {tr("Δ self CPU"), Format::Delta, delta},
                     {tr("Δ%"), Format::Percent, percent},
                     {tr("Total CPU BASE"), Format::Duration, [](const DiffRow& r) { return r.baseTotalCpuNs; }},
                     {tr("Total CPU NEW"), Format::Duration, [](const DiffRow& r) { return r.newTotalCpuNs; }},
                     {tr("Device BASE"), Format::Duration, [](const DiffRow& r) { return r.baseDeviceNs; }},
                     {tr("Device NEW"), Format::Duration, [](const DiffRow& r) { return r.newDeviceNs; }}};
        m_deltaColumn = 5;
        break;
    case Kind::Kernels:
        m_columns = {{tr("Kernel"), Format::Text, {}},
                     {tr("Count BASE"), Format::Count, baseCount},
                     {tr("Count NEW"), Format::Count, newCount},
                     {tr("Total BASE / step"), Format::Duration, base},
                     {tr("Total NEW / step"), Format::Duration, neu},
                     {tr("Δ"), Format::Delta, delta},
                     {tr("Δ%"), Format::Percent, percent},
                     {tr("Mean BASE"), Format::Duration,
                      [](const DiffRow& r) { return r.baseCount ? r.baseNs / double(r.baseCount) : 0.0; }},
                     {tr("Mean NEW"), Format::Duration,
                      [](const DiffRow& r) { return r.newCount ? r.newNs / double(r.newCount) : 0.0; }}};
        m_deltaColumn = 5;
        break;
    case Kind::Memcpy:
        m_columns = {{tr("Kind"), Format::Text, {}},
                     {tr("Count BASE"), Format::Count, baseCount},
                     {tr("Count NEW"), Format::Count, newCount},
                     {tr("Time BASE / step"), Format::Duration, base},
                     {tr("Time NEW / step"), Format::Duration, neu},
                     {tr("Δ"), Format::Delta, delta},
                     {tr("Δ%"), Format::Percent, percent},
                     {tr("Bytes BASE / step"), Format::Bytes, [](const DiffRow& r) { return double(r.baseBytes); }},
                     {tr("Bytes NEW / step"), Format::Bytes, [](const DiffRow& r) { return double(r.newBytes); }}};
        m_deltaColumn = 5;
        break;
    }
}

void DiffTableModel::setRows(std::vector<analysis::DiffRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int DiffTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int DiffTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant DiffTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || std::size_t(index.row()) >= m_rows.size())
        return {};
    const DiffRow& row = m_rows[std::size_t(index.row())];
    const Column& column = m_columns[std::size_t(index.column())];
    if (column.format == Format::Text) {
        if (role == Qt::DisplayRole || role == kSortRole)
            return QString::fromStdString(row.name);
        if (role == Qt::ToolTipRole) {
            QString tip = QString::fromStdString(row.name).left(2000);
            if (!row.detail.empty())
                tip += QStringLiteral("\n") + QString::fromStdString(row.detail);
            if (!row.basePresent || !row.newPresent)
                tip += QStringLiteral("\n") + (row.basePresent ? tr("only in BASE") : tr("only in NEW"));
            return tip;
        }
        return {};
    }
    const double value = column.value(row);
    // A side without the row shows an empty cell rather than a zero.
    const bool isBase = column.header.contains(QStringLiteral("BASE"));
    const bool isNew = column.header.contains(QStringLiteral("NEW"));
    const bool absent = (isBase && !row.basePresent) || (isNew && !row.newPresent);
    switch (role) {
    case kSortRole: return column.format == Format::Delta ? std::abs(value) : value;
    case Qt::TextAlignmentRole: return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (column.format == Format::Delta || column.format == Format::Percent) {
            if (value < 0)
                return QBrush(readableAccent(QColor(20, 130, 40)));
            if (value > 0)
                return QBrush(readableAccent(QColor(190, 40, 30)));
        }
        return {};
    case Qt::DisplayRole:
        if (absent)
            return QString();
        switch (column.format) {
        case Format::Count: return QString::number(qulonglong(value));
        case Format::Duration: return statsDuration(TimeNs(std::llround(value)));
        case Format::Delta: return signedDuration(value);
        case Format::Percent:
            if (!row.basePresent || row.baseNs == 0)
                return row.newPresent && !row.basePresent ? tr("new") : QString();
            return QStringLiteral("%1%2%").arg(value > 0 ? QStringLiteral("+") : QString()).arg(value, 0, 'f', 1);
        case Format::Bytes: return value < 0 ? QString() : statsBytes(std::int64_t(value));
        case Format::Text: break;
        }
        return {};
    default: return {};
    }
}

QVariant DiffTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= int(m_columns.size()))
        return {};
    return m_columns[std::size_t(section)].header;
}

} // namespace ks
