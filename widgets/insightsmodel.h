#pragma once
// The Insights list: one row per finding, in the order given (largest time at stake first).
// Columns: the finding (its severity as a coloured mark), time per step with its share of the
// step, evidence count. Three columns so that the finding keeps most of a narrow dock; a
// fourth, the trace a finding came from (its traceIndex), when several traces' findings are
// listed together (the view hides it otherwise).
#include "core/analysis/insights.h"

#include <QAbstractTableModel>
#include <QStringList>

namespace ks {

class InsightsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { TitleColumn, TimeColumn, EvidenceColumn, MemberColumn, ColumnCount };
    // The insight's id under Qt::UserRole on any column; its severity word ("high") under
    // kSeverityRole.
    static constexpr int kIdRole = Qt::UserRole;
    static constexpr int kSeverityRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;

    // "1.234 ms": the time the finding costs per step, as the table and the overview show it.
    static QString timePerStep(const analysis::Insight& insight);

    void setInsights(std::vector<analysis::Insight> insights);
    // Names of the traces by traceIndex, for the member column ("Rank 1 · host").
    void setMemberNames(QStringList names);
    const std::vector<analysis::Insight>& insights() const { return m_insights; }
    const analysis::Insight* insightAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<analysis::Insight> m_insights;
    QStringList m_memberNames;
};

} // namespace ks
