#include "widgets/searchbar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>

namespace ks {

SearchBar::SearchBar(QWidget* parent)
    : QWidget(parent)
    , m_edit(new QLineEdit(this))
    , m_count(new QLabel(this))
    , m_debounce(new QTimer(this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    m_edit->setPlaceholderText(tr("Search slice names (Enter: next, Shift+Enter: previous)"));
    m_edit->setClearButtonEnabled(true);
    m_edit->installEventFilter(this);
    auto* prev = new QToolButton(this);
    prev->setText(QStringLiteral("▲"));
    prev->setToolTip(tr("Previous match (Shift+Enter)"));
    auto* nextButton = new QToolButton(this);
    nextButton->setText(QStringLiteral("▼"));
    nextButton->setToolTip(tr("Next match (Enter)"));
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Close search (Escape)"));
    layout->addWidget(new QLabel(tr("Find:"), this));
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_count);
    layout->addWidget(prev);
    layout->addWidget(nextButton);
    layout->addWidget(close);

    // Typing restarts a short timer so a search does not run on every keystroke.
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(200);
    connect(m_debounce, &QTimer::timeout, this, &SearchBar::runSearch);
    connect(m_edit, &QLineEdit::textChanged, this, [this] {
        m_stale = true;
        m_debounce->start();
    });
    connect(prev, &QToolButton::clicked, this, &SearchBar::previous);
    connect(nextButton, &QToolButton::clicked, this, &SearchBar::next);
    connect(close, &QToolButton::clicked, this, &SearchBar::dismiss);
    updateCountLabel();
}

void SearchBar::setTrace(std::shared_ptr<const Trace> trace)
{
    m_trace = std::move(trace);
    m_result = {};
    m_current = -1;
    m_stale = !m_edit->text().isEmpty();
    if (m_stale && isVisible())
        runSearch();
    updateCountLabel();
}

void SearchBar::activate()
{
    show();
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
}

void SearchBar::setQuery(const QString& text)
{
    m_edit->setText(text);
    runSearch();
}

void SearchBar::runSearch()
{
    m_debounce->stop();
    m_stale = false;
    m_current = -1;
    const QByteArray needle = m_edit->text().toUtf8();
    m_result = m_trace ? searchSliceNames(*m_trace, std::string_view(needle.constData(), std::size_t(needle.size())))
                       : NameSearchResult{};
    updateCountLabel();
    Q_EMIT highlightChanged(m_result.nameMatches);
}

void SearchBar::step(int direction)
{
    if (m_stale)
        runSearch();
    const int count = int(m_result.slices.size());
    if (count == 0)
        return;
    if (m_current < 0)
        m_current = direction > 0 ? 0 : count - 1;
    else
        m_current = (m_current + direction + count) % count;
    updateCountLabel();
    Q_EMIT matchActivated(m_result.slices[std::size_t(m_current)]);
}

void SearchBar::next()
{
    step(+1);
}

void SearchBar::previous()
{
    step(-1);
}

void SearchBar::dismiss()
{
    m_edit->clear();
    runSearch();
    hide();
}

void SearchBar::updateCountLabel()
{
    const int count = int(m_result.slices.size());
    if (m_edit->text().isEmpty())
        m_count->clear();
    else if (m_current >= 0)
        m_count->setText(tr("%1 of %2").arg(m_current + 1).arg(count));
    else
        m_count->setText(tr("%n match(es)", nullptr, count));
}

bool SearchBar::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_edit && event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            step(key->modifiers() & Qt::ShiftModifier ? -1 : +1);
            return true;
        }
        if (key->key() == Qt::Key_Escape) {
            dismiss();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace ks
