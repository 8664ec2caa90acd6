#include "widgets/insightsmodel.h"

#include "widgets/statsformat.h"

#include <QColor>
#include <QIcon>
#include <QPainter>
#include <QPixmap>

#include <cmath>

namespace ks {

QString InsightsModel::timePerStep(const analysis::Insight& insight)
{
    return QString::fromStdString(formatDuration(TimeNs(std::llround(insight.timeUs * 1000.0))));
}

void InsightsModel::setInsights(std::vector<analysis::Insight> insights)
{
    beginResetModel();
    m_insights = std::move(insights);
    endResetModel();
}

void InsightsModel::setMemberNames(QStringList names)
{
    m_memberNames = std::move(names);
    if (!m_insights.empty())
        Q_EMIT dataChanged(index(0, MemberColumn), index(rowCount() - 1, MemberColumn));
}

const analysis::Insight* InsightsModel::insightAt(int row) const
{
    return row >= 0 && std::size_t(row) < m_insights.size() ? &m_insights[std::size_t(row)] : nullptr;
}

int InsightsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_insights.size()); }

int InsightsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

namespace {

QString severityWord(analysis::Severity severity)
{
    switch (severity) {
    case analysis::Severity::High: return InsightsModel::tr("high");
    case analysis::Severity::Medium: return InsightsModel::tr("medium");
    case analysis::Severity::Low: return InsightsModel::tr("low");
    }
    return {};
}

// A filled dot in the severity's colour (made per call: the accent follows a light or dark
// palette, and the table has a handful of rows); low findings get a mid grey.
QIcon severityMark(analysis::Severity severity)
{
    const QColor colour = severity == analysis::Severity::High ? readableAccent(QColor(190, 30, 30))
        : severity == analysis::Severity::Medium               ? readableAccent(QColor(200, 120, 0))
                                                               : QColor(140, 140, 140);
    QPixmap pixmap(12, 12);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(colour);
    painter.drawEllipse(QRectF(1.5, 1.5, 9, 9));
    painter.end();
    return QIcon(pixmap);
}

} // namespace

QVariant InsightsModel::data(const QModelIndex& index, int role) const
{
    const analysis::Insight* insight = insightAt(index.row());
    if (!insight)
        return {};
    switch (role) {
    case kIdRole: return QString::fromStdString(insight->id);
    case kSeverityRole: return severityWord(insight->severity);
    case Qt::TextAlignmentRole:
        return index.column() == TitleColumn || index.column() == MemberColumn
            ? QVariant()
            : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::DecorationRole: return index.column() == TitleColumn ? severityMark(insight->severity) : QVariant();
    case Qt::ToolTipRole:
        return tr("%1 (%2): %3")
            .arg(QString::fromStdString(insight->id), severityWord(insight->severity),
                 QString::fromStdString(insight->title));
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (index.column()) {
    case TitleColumn: return QString::fromStdString(insight->title);
    case TimeColumn:
        return QStringLiteral("%1 (%2 %)").arg(timePerStep(*insight)).arg(insight->share * 100.0, 0, 'f', 1);
    case EvidenceColumn: return qulonglong(insight->evidence.size());
    case MemberColumn: return m_memberNames.value(insight->traceIndex, QString::number(insight->traceIndex));
    default: return {};
    }
}

QVariant InsightsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TitleColumn: return tr("Finding");
    case TimeColumn: return tr("Per step");
    case EvidenceColumn: return tr("Events");
    case MemberColumn: return tr("Trace");
    default: return {};
    }
}

} // namespace ks
