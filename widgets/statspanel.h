#pragma once
// A statistics table (Operators, Kernels) with a name filter, sorting, copy as TSV/CSV,
// and stepping through the occurrences of the current row in the timeline. It follows a
// time range: the range selected in the timeline (setRange / clearRange), or, while
// "Visible range only" is on, the visible range; otherwise the whole trace. Rows are
// computed on a worker thread; a newer request makes older results stale.
//
// Hosting it in a main window takes a few lines:
//   auto* ops = new StatsPanel(new OperatorTableModel);
//   connect(window, &MainWindow::traceChanged, ops, &StatsPanel::setTrace);
//   connect(timeline, &TimelineWidget::visibleRangeChanged, ops, &StatsPanel::setVisibleRange);
//   connect(ops, &StatsPanel::occurrenceRequested, window, &MainWindow::revealSlice);
#include "core/model/trace.h"
#include "widgets/statstablemodel.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTimer;
class QToolButton;

namespace ks {

class ColumnWidthMemory;
class JobTracker;

class StatsPanel : public QWidget {
    Q_OBJECT
public:
    // Takes ownership of the model.
    explicit StatsPanel(StatsTableModel* model, QWidget* parent = nullptr);

    StatsTableModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    // The line shown instead of an empty table (hidden while there are rows).
    QLabel* emptyLabel() const { return m_emptyLabel; }
    std::optional<TimeRange> effectiveRange() const;
    // The current row's occurrences in stepping order (by start, or longest first).
    std::vector<SliceId> currentOccurrences() const;
    // Header plus the selected rows (all rows when none is selected), as shown.
    QString rowsAsText(QChar separator) const;

public Q_SLOTS:
    void setTrace(std::shared_ptr<const ks::Trace> trace);
    // setTrace() for a newer snapshot of the trace shown (a live recording): the rows of the
    // previous snapshot still being computed arrive first (JobTracker::IfRunning::LetFinish).
    void setNewerSnapshot(std::shared_ptr<const ks::Trace> trace);
    void setRange(ks::TimeNs from, ks::TimeNs to);
    void clearRange();
    void setVisibleRange(ks::TimeNs from, ks::TimeNs to);
    void setFollowVisibleRange(bool follow);
    void setLongestFirst(bool longestFirst);
    void setFilterText(const QString& text);
    void nextOccurrence();
    void previousOccurrence();
    void copyAsTsv();
    void copyAsCsv();

Q_SIGNALS:
    void occurrenceRequested(ks::SliceId slice);
    // New rows are in the model (after a trace, range or option change).
    void rowsUpdated();

private:
    void scheduleRecompute(int delayMs);
    void recompute();
    void stepOccurrence(int delta);
    void resetOccurrence();
    void updateLabels();

    StatsTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLineEdit* m_filter;
    QCheckBox* m_followVisible;
    QCheckBox* m_longestFirst;
    QToolButton* m_previous;
    QToolButton* m_next;
    QLabel* m_occurrenceLabel;
    QLabel* m_rangeLabel;
    QLabel* m_emptyLabel; // the model's emptyText() while the whole trace gives no rows
    ColumnWidthMemory* m_widths;
    QTimer* m_debounce;
    QWidget* m_tools;
    JobTracker* m_jobs;

    std::shared_ptr<const Trace> m_trace;
    std::optional<TimeRange> m_selectedRange;
    std::optional<TimeRange> m_visibleRange;
    bool m_newerSnapshot = false; // the next recompute is for a newer snapshot
    bool m_computing = false; // a job is computing the rows (the label says so)
    bool m_userSorted = false;
    bool m_columnsSized = false;
    int m_occurrenceRow = -1; // source row the index below refers to
    int m_occurrenceIndex = -1;
};

} // namespace ks
