#pragma once
// Base of the statistics tables (Operators, Kernels): rows computed from a trace and an
// optional time range on a worker thread, installed on the GUI thread, each row knowing the
// slices it counts so the panel can step through its occurrences.
#include "core/model/trace.h"

#include <QAbstractTableModel>
#include <QList>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QAction;

namespace ks {

struct TimeRange {
    TimeNs from = 0, to = 0;
};

class StatsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Qt::DisplayRole is the formatted text; kSortRole the raw number (or the name).
    static constexpr int kSortRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;

    // Installs computed rows into the model that computed them (on the GUI thread).
    using Installer = std::function<void(StatsTableModel&)>;

    // Runs on a worker thread: reads only its arguments and options copied at call time
    // (call it on the GUI thread, run what it returns there or on a worker); it returns the
    // installer of the rows.
    virtual std::function<Installer()> rowsJob(std::shared_ptr<const Trace> trace,
                                               std::optional<TimeRange> range) const = 0;
    virtual const std::vector<SliceId>& occurrences(int row) const = 0;
    // The column a name filter matches, and the column sorted (descending) until the user
    // picks another.
    virtual int nameColumn() const { return 0; }
    virtual int defaultSortColumn() const = 0;
    // The one line shown instead of an empty table (the whole trace has no such rows).
    virtual QString emptyText() const { return tr("Nothing in this trace"); }
    // Checkable options of this table (groupings), shown by the panel as tool buttons.
    const QList<QAction*>& options() const { return m_options; }

Q_SIGNALS:
    // An option that changes the rows (e.g. grouping) was switched: compute again.
    void recomputeNeeded();

protected:
    // A checkable option: `apply` stores it, then the rows are computed again.
    void addOption(const QString& text, const QString& toolTip, std::function<void(bool)> apply);

private:
    QList<QAction*> m_options;
};

} // namespace ks
