#pragma once
// The search field (Ctrl+F or /): case-insensitive substring over slice names, with a
// match count; Enter / Shift+Enter step to the next / previous match in time order.
#include "core/timeline/namesearch.h"

#include <QWidget>

#include <memory>

class QLabel;
class QLineEdit;
class QTimer;

namespace ks {

class SearchBar : public QWidget {
    Q_OBJECT
public:
    explicit SearchBar(QWidget* parent = nullptr);
    void setTrace(std::shared_ptr<const Trace> trace);
    QLineEdit* lineEdit() const { return m_edit; }
    const std::vector<SliceId>& matches() const { return m_result.slices; }
    int currentIndex() const { return m_current; }

public Q_SLOTS:
    void activate();
    void setQuery(const QString& text);
    void next();
    void previous();
    void dismiss();

Q_SIGNALS:
    // Names to highlight, indexed by StringId; empty when the search is cleared.
    void highlightChanged(const std::vector<bool>& names);
    void matchActivated(ks::SliceId slice);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void runSearch();
    void step(int direction);
    void updateCountLabel();

    std::shared_ptr<const Trace> m_trace;
    NameSearchResult m_result;
    int m_current = -1;
    bool m_stale = false;
    QLineEdit* m_edit = nullptr;
    QLabel* m_count = nullptr;
    QTimer* m_debounce = nullptr;
};

} // namespace ks
