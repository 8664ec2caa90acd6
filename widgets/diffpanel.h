#pragma once
// The Diff dock of a comparison (issue 12): the summary line on top, then tabs with the
// per-category, per-operator, per-kernel (optionally by kernel family) and memcpy/memset
// tables, each sortable (by |Δ| at first) and filterable by name. Double-clicking a row
// asks for its occurrences to be highlighted in both timelines. With the ranks of a run open,
// two combo boxes pick which two ranks it compares (BASE, NEW).
#include "widgets/difftablemodel.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace ks {

class DiffPanel : public QWidget {
    Q_OBJECT
public:
    explicit DiffPanel(QWidget* parent = nullptr);

    void setReport(std::shared_ptr<const analysis::DiffReport> report);
    void clear();
    // The ranks of a run: shows the two pickers over `titles`, `base` and `neu` chosen (no
    // signal). hideMembers(): a comparison's BASE and NEW are fixed.
    void setMembers(const QStringList& titles, int base, int neu);
    void hideMembers();
    QComboBox* baseMemberBox() const { return m_base; }
    QComboBox* newMemberBox() const { return m_new; }
    std::shared_ptr<const analysis::DiffReport> report() const { return m_report; }

    QLabel* summaryLabel() const { return m_summary; }
    QTabWidget* tabs() const { return m_tabs; }
    QTableView* view(DiffTableModel::Kind kind) const;
    DiffTableModel* model(DiffTableModel::Kind kind) const;
    QCheckBox* kernelFamiliesBox() const { return m_families; }
    QLineEdit* filterEdit() const { return m_filter; }

Q_SIGNALS:
    // A row was double-clicked: its name (a kernel family's name when `family`).
    void rowActivated(ks::DiffTableModel::Kind kind, const QString& name, bool family);
    void highlightCleared();
    // The user picked another pair of members (indices into setMembers' titles).
    void membersChosen(int base, int neu);

private:
    struct Table {
        DiffTableModel* model = nullptr;
        QSortFilterProxyModel* proxy = nullptr;
        QTableView* view = nullptr;
    };
    void fillKernels();

    std::shared_ptr<const analysis::DiffReport> m_report;
    QLabel* m_summary = nullptr;
    QLabel* m_notes = nullptr;
    QLineEdit* m_filter = nullptr;
    QCheckBox* m_families = nullptr;
    QTabWidget* m_tabs = nullptr;
    QWidget* m_members = nullptr;
    QComboBox* m_base = nullptr;
    QComboBox* m_new = nullptr;
    std::vector<Table> m_tables; // by Kind
};

} // namespace ks
