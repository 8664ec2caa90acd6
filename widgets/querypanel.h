#pragma once
// The Query dock: SQL over the timeline's trace (core/query, docs/query.md). Run (Ctrl+Return)
// reads the first page of rows off the GUI thread; the table asks for further pages as it
// scrolls; Stop interrupts a query. Choosing a row that has a `ts` and a `track` selects
// that slice on the timeline. Queries can be saved by name (QSettings) and recalled.
// GUI thread only.
#include "core/model/trace.h"

#include <QPointer>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace ks {

class JobTracker;
class QueryResultModel;
class TimelineWidget;
struct QuerySession;

class QueryPanel : public QWidget {
    Q_OBJECT
public:
    explicit QueryPanel(TimelineWidget* timeline, QWidget* parent = nullptr);
    ~QueryPanel() override;

    QueryResultModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QPlainTextEdit* editor() const { return m_editor; }
    QComboBox* savedQueries() const { return m_saved; }
    QString statusText() const;
    // Rows read per page (1000 by default).
    void setPageSize(int rows) { m_pageSize = rows; }

public Q_SLOTS:
    void run();
    void stop();
    // Saves the editor's SQL under `name` (replacing one of that name).
    void saveQuery(const QString& name);
    void deleteSavedQuery(const QString& name);

Q_SIGNALS:
    // A page of rows (or an error) came in.
    void pageReady();
    void queryFailed(const QString& message);

private:
    void setTrace(std::shared_ptr<const Trace> trace);
    void fetchNextPage();
    void onFailure(const QString& message);
    void selectRowOnTimeline(int row);
    void reloadSavedQueries();
    void updateStatus();

    QPointer<TimelineWidget> m_timeline;
    std::shared_ptr<const Trace> m_trace;
    std::shared_ptr<QuerySession> m_session;
    JobTracker* m_jobs; // its own pool: a long query must not hold up the views' analyses
    QueryResultModel* m_model;
    QPlainTextEdit* m_editor;
    QPushButton* m_run;
    QPushButton* m_stop;
    QComboBox* m_saved;
    QLabel* m_status;
    QTableView* m_view;
    int m_pageSize = 1000;
    QString m_error;
    bool m_running = false;
};

} // namespace ks
