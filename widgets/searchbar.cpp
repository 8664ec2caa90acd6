#include "widgets/searchbar.h"

#include "widgets/heightgrip.h"
#include "widgets/jobtracker.h"
#include "widgets/searchresultsmodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace ks {

namespace {

constexpr int kProgressIntervalMs = 100;
constexpr int kResultsListRows = 15; // by default; the grip under the list changes it
constexpr int kMinResultsRows = 3, kMaxResultsRows = 60;
const QString kRowsKey = QStringLiteral("search/resultsRows");

} // namespace

SearchBar::SearchBar(QWidget* parent)
    : QWidget(parent)
    , m_edit(new QLineEdit(this))
    , m_count(new QLabel(this))
    , m_cancelArgs(new QToolButton(this))
    , m_listButton(new QToolButton(this))
    , m_list(new QTableView(this))
    , m_grip(new HeightGrip(this))
    , m_model(new SearchResultsModel(this))
    , m_debounce(new QTimer(this))
    , m_progress(new QTimer(this))
    , m_jobs(new JobTracker(this))
{
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(4, 2, 4, 2);
    column->setSpacing(2);
    auto* layout = new QHBoxLayout;
    layout->setContentsMargins(0, 0, 0, 0);
    column->addLayout(layout);
    m_edit->setPlaceholderText(
        tr("Search names and args: shapes, External id, … (Enter: next, Shift+Enter: previous)"));
    m_edit->setClearButtonEnabled(true);
    m_edit->installEventFilter(this);
    auto* prev = new QToolButton(this);
    prev->setText(QStringLiteral("▲"));
    prev->setToolTip(tr("Previous match (Shift+Enter)"));
    auto* nextButton = new QToolButton(this);
    nextButton->setText(QStringLiteral("▼"));
    nextButton->setToolTip(tr("Next match (Enter)"));
    m_cancelArgs->setText(tr("Stop"));
    m_cancelArgs->setToolTip(tr("Stop searching the args (the name matches stay)"));
    m_cancelArgs->hide();
    m_listButton->setText(tr("List"));
    m_listButton->setCheckable(true);
    m_listButton->setToolTip(tr("Show the matches as a list (name, track, start, duration)"));
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Close search (Escape)"));
    layout->addWidget(new QLabel(tr("Find:"), this));
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_count);
    layout->addWidget(m_cancelArgs);
    layout->addWidget(prev);
    layout->addWidget(nextButton);
    layout->addWidget(m_listButton);
    layout->addWidget(close);

    m_list->setModel(m_model);
    m_list->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_list->verticalHeader()->hide();
    // One line per match, long names elided in the middle (the tooltip has them whole), and
    // fifteen rows under the header unless the user dragged the grip for more or fewer.
    m_list->setWordWrap(false);
    m_list->setTextElideMode(Qt::ElideMiddle);
    m_list->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_list->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    QHeaderView* header = m_list->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(SearchResultsModel::Name, QHeaderView::Stretch);
    header->setSectionResizeMode(SearchResultsModel::Track, QHeaderView::Interactive);
    header->resizeSection(SearchResultsModel::Track, fontMetrics().averageCharWidth() * 32);
    header->setSectionResizeMode(SearchResultsModel::Start, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(SearchResultsModel::Duration, QHeaderView::ResizeToContents);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    resizeList(QSettings().value(kRowsKey, kResultsListRows).toInt());
    m_list->hide();
    m_grip->hide();
    column->addWidget(m_list);
    column->addWidget(m_grip);
    connect(m_grip, &HeightGrip::dragged, this, [this](int dy) {
        if (m_rowsAtPress == 0)
            m_rowsAtPress = m_rows;
        const int rowHeight = m_list->verticalHeader()->defaultSectionSize();
        resizeList(m_rowsAtPress + (dy >= 0 ? dy + rowHeight / 2 : dy - rowHeight / 2) / rowHeight);
    });
    connect(m_grip, &HeightGrip::released, this, [this] {
        m_rowsAtPress = 0;
        setResultsRows(m_rows);
    });
    connect(m_list, &QTableView::activated, this, [this](const QModelIndex& index) {
        m_current = index.row();
        updateCountLabel();
        Q_EMIT matchActivated(m_model->sliceAt(index.row()));
    });
    connect(m_listButton, &QToolButton::toggled, this, &SearchBar::setResultsListShown);

    // Typing restarts a short timer so a search does not run on every keystroke.
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(200);
    connect(m_debounce, &QTimer::timeout, this, &SearchBar::runSearch);
    connect(m_edit, &QLineEdit::textChanged, this, [this] {
        m_stale = true;
        m_debounce->start();
    });
    m_progress->setInterval(kProgressIntervalMs);
    connect(m_progress, &QTimer::timeout, this, &SearchBar::updateCountLabel);
    connect(m_cancelArgs, &QToolButton::clicked, this, &SearchBar::cancelArgsSearch);
    connect(prev, &QToolButton::clicked, this, &SearchBar::previous);
    connect(nextButton, &QToolButton::clicked, this, &SearchBar::next);
    connect(close, &QToolButton::clicked, this, &SearchBar::dismiss);
    updateCountLabel();
}

SearchBar::~SearchBar() = default;

void SearchBar::setTrace(std::shared_ptr<const Trace> trace)
{
    cancelArgsSearch();
    m_trace = std::move(trace);
    m_result = {};
    m_matches.clear();
    m_model->setResults(m_trace, {});
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
    cancelArgsSearch();
    m_pendingStep = 0;
    m_stale = false;
    m_current = -1;
    const QByteArray needle = m_edit->text().toUtf8();
    const std::string_view text(needle.constData(), std::size_t(needle.size()));
    m_result = m_trace ? searchSliceNames(*m_trace, text) : NameSearchResult{};
    m_matches = m_result.slices;
    m_model->setResults(m_trace, m_matches);
    Q_EMIT highlightChanged(m_result.nameMatches);
    Q_EMIT sliceMatchesChanged({});
    if (m_trace && !text.empty() && m_trace->hasTextSource()) {
        // Args are read back from the file: a pass over it, so off the GUI thread.
        auto control = std::make_shared<ArgSearchControl>();
        m_control = control;
        m_jobs->start([trace = m_trace, needle = std::string(text),
                       control] { return searchSliceArgs(*trace, needle, *control); },
                      [this](std::vector<SliceId> found) { onArgMatches(std::move(found)); },
                      [this](const QString&) { onArgMatches({}); }, [control] { control->cancelled = true; });
        m_cancelArgs->show();
        m_progress->start();
    }
    updateCountLabel();
}

void SearchBar::onArgMatches(std::vector<SliceId> argMatches)
{
    m_control.reset();
    m_progress->stop();
    m_cancelArgs->hide();
    // Arg matches whose names did not match: merged in time order, highlighted by slice.
    const SliceTable& slices = m_trace->slices();
    const auto& names = m_result.nameMatches;
    std::erase_if(argMatches, [&](SliceId s) { return !names.empty() && names[slices.name[s]]; });
    if (!argMatches.empty()) {
        const SliceId current = m_current >= 0 ? m_matches[std::size_t(m_current)] : kNoSlice;
        std::vector<SliceId> merged;
        merged.reserve(m_matches.size() + argMatches.size());
        std::merge(m_matches.begin(), m_matches.end(), argMatches.begin(), argMatches.end(), std::back_inserter(merged),
                   [&](SliceId a, SliceId b) { return slices.start[a] < slices.start[b]; });
        m_matches = std::move(merged);
        if (current != kNoSlice)
            m_current = int(std::find(m_matches.begin(), m_matches.end(), current) - m_matches.begin());
        m_model->setResults(m_trace, m_matches);
        std::sort(argMatches.begin(), argMatches.end());
        Q_EMIT sliceMatchesChanged(argMatches);
    }
    updateCountLabel();
    if (const int pending = std::exchange(m_pendingStep, 0))
        step(pending);
    Q_EMIT argsSearchFinished();
}

void SearchBar::cancelArgsSearch()
{
    m_pendingStep = 0;
    if (!m_control)
        return;
    m_jobs->cancel();
    m_control.reset();
    m_progress->stop();
    m_cancelArgs->hide();
    updateCountLabel();
}

void SearchBar::setResultsListShown(bool shown)
{
    m_listButton->setChecked(shown);
    m_list->setVisible(shown);
    m_grip->setVisible(shown);
}

void SearchBar::setResultsRows(int rows)
{
    resizeList(rows);
    QSettings().setValue(kRowsKey, m_rows);
}

void SearchBar::resizeList(int rows)
{
    m_rows = std::clamp(rows, kMinResultsRows, kMaxResultsRows);
    m_list->setFixedHeight(m_list->horizontalHeader()->sizeHint().height()
                           + m_rows * m_list->verticalHeader()->defaultSectionSize() + 2 * m_list->frameWidth());
}

void SearchBar::step(int direction)
{
    if (m_stale)
        runSearch();
    const int count = int(m_matches.size());
    if (count == 0) {
        m_pendingStep = m_control ? direction : 0; // the args may still match: step when they come
        return;
    }
    m_pendingStep = 0;
    if (m_current < 0)
        m_current = direction > 0 ? 0 : count - 1;
    else
        m_current = (m_current + direction + count) % count;
    updateCountLabel();
    m_list->selectRow(m_current);
    Q_EMIT matchActivated(m_matches[std::size_t(m_current)]);
}

void SearchBar::next() { step(+1); }

void SearchBar::previous() { step(-1); }

void SearchBar::dismiss()
{
    m_edit->clear();
    runSearch();
    hide();
}

QString SearchBar::countText() const
{
    const int count = int(m_matches.size());
    QString text;
    if (m_edit->text().isEmpty())
        return text;
    if (m_current >= 0)
        text = tr("%1 of %2").arg(m_current + 1).arg(count);
    else
        text = tr("%n match(es)", nullptr, count);
    if (m_control && m_trace && m_trace->slices().size() > 0) {
        const double done = double(m_control->done.load()) / double(m_trace->slices().size());
        text += tr(" · searching args %1 %").arg(int(done * 100));
    }
    return text;
}

void SearchBar::updateCountLabel() { m_count->setText(countText()); }

bool SearchBar::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_edit && event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            step(key->modifiers() & Qt::ShiftModifier ? -1 : +1);
            return true;
        }
        if (key->key() == Qt::Key_Escape) {
            dismiss(); // stops the args search too
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace ks
