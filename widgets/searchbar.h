#pragma once
// The search field (Ctrl+F or /): case-insensitive substring over slice names and, off the
// GUI thread, over their args (keys and values: shapes, "External id", stream numbers),
// with a match count, a results list (name, track, start, duration) to jump from, and
// Enter / Shift+Enter stepping to the next / previous match in time order. The name
// matches come at once; the args search reports its progress and can be cancelled.
#include "core/timeline/argsearch.h"
#include "core/timeline/namesearch.h"

#include <QWidget>

#include <memory>

class QLabel;
class QLineEdit;
class QTableView;
class QTimer;
class QToolButton;

namespace ks {

class HeightGrip;
class JobTracker;
class SearchResultsModel;

class SearchBar : public QWidget {
    Q_OBJECT
public:
    explicit SearchBar(QWidget* parent = nullptr);
    ~SearchBar() override;
    void setTrace(std::shared_ptr<const Trace> trace);
    QLineEdit* lineEdit() const { return m_edit; }
    // Name and arg matches, in time order (the arg ones once their search has finished).
    const std::vector<SliceId>& matches() const { return m_matches; }
    int currentIndex() const { return m_current; }
    bool isSearchingArgs() const { return m_control != nullptr; }
    QTableView* resultsView() const { return m_list; }
    HeightGrip* resultsGrip() const { return m_grip; }
    // Rows the results list shows (kept in QSettings; dragging its grip changes it).
    int resultsRows() const { return m_rows; }
    void setResultsRows(int rows);
    SearchResultsModel* resultsModel() const { return m_model; }
    QString countText() const;

public Q_SLOTS:
    void activate();
    void setQuery(const QString& text);
    void next();
    void previous();
    void dismiss();
    void cancelArgsSearch();
    void setResultsListShown(bool shown);

Q_SIGNALS:
    // Names to highlight, indexed by StringId; empty when the search is cleared.
    void highlightChanged(const std::vector<bool>& names);
    // Slices to highlight whose args (not names) match, sorted by id; empty: none.
    void sliceMatchesChanged(const std::vector<ks::SliceId>& slices);
    void matchActivated(ks::SliceId slice);
    void argsSearchFinished();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void runSearch();
    void onArgMatches(std::vector<SliceId> argMatches);
    void step(int direction);
    void resizeList(int rows);
    void updateCountLabel();

    std::shared_ptr<const Trace> m_trace;
    NameSearchResult m_result;
    std::vector<SliceId> m_matches;
    int m_current = -1;
    bool m_stale = false;
    QLineEdit* m_edit = nullptr;
    QLabel* m_count = nullptr;
    QToolButton* m_cancelArgs = nullptr;
    QToolButton* m_listButton = nullptr;
    QTableView* m_list = nullptr;
    HeightGrip* m_grip = nullptr;
    int m_rows = 0;
    int m_rowsAtPress = 0; // while its grip is dragged
    // Enter before any match came, while the args are searched: the step to take when they come.
    int m_pendingStep = 0;
    SearchResultsModel* m_model = nullptr;
    QTimer* m_debounce = nullptr;
    QTimer* m_progress = nullptr;
    JobTracker* m_jobs = nullptr;
    std::shared_ptr<ArgSearchControl> m_control; // of the args search under way
};

} // namespace ks
