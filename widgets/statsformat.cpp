#include "widgets/statsformat.h"

#include <QAbstractItemModel>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLocale>
#include <QPalette>
#include <QStringList>
#include <QTableView>

#include <limits>

namespace ks {

QString statsDuration(TimeNs ns) { return QString::fromStdString(formatDuration(ns)); }

QString statsPercent(TimeNs part, TimeNs whole)
{
    return QStringLiteral("%1%").arg(whole ? 100.0 * double(part) / double(whole) : 0.0, 0, 'f', 2);
}

QString statsBytes(std::int64_t bytes)
{
    // formattedDataSize has no sign; frees are negative (the most negative has no opposite).
    const qint64 magnitude = bytes >= 0               ? bytes
        : bytes == std::numeric_limits<qint64>::min() ? std::numeric_limits<qint64>::max()
                                                      : -bytes;
    const QString size = QLocale().formattedDataSize(magnitude);
    return bytes < 0 ? QLatin1Char('-') + size : size;
}

namespace {

QString delimitedField(QString text, QChar separator)
{
    if (separator == QLatin1Char(',')) {
        if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) || text.contains(QLatin1Char('\n'))) {
            text.replace(QLatin1String("\""), QLatin1String("\"\""));
            return QLatin1Char('"') + text + QLatin1Char('"');
        }
        return text;
    }
    text.replace(separator, QLatin1Char(' '));
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return text;
}

} // namespace

QString statsDelimitedText(const QAbstractItemModel& model, const QList<int>& rows, QChar separator)
{
    QString out;
    const auto line = [&](auto cell) {
        QStringList fields;
        for (int c = 0; c < model.columnCount(); ++c)
            fields << delimitedField(cell(c), separator);
        out += fields.join(separator) + QLatin1Char('\n');
    };
    line([&](int c) { return model.headerData(c, Qt::Horizontal).toString(); });
    for (const int r : rows)
        line([&](int c) { return model.index(r, c).data().toString(); });
    return out;
}

QColor readableAccent(const QColor& accent)
{
    const bool darkBase = QGuiApplication::palette().color(QPalette::Base).lightness() < 128;
    return darkBase ? accent.lighter(170) : accent;
}

void measureColumnsFromLeadingRows(QTableView& view)
{
    constexpr int kRowsBeyondTheVisible = 48;
    view.horizontalHeader()->setResizeContentsPrecision(kRowsBeyondTheVisible);
}

} // namespace ks
