#include "widgets/statspanel.h"

#include "widgets/columnwidths.h"
#include "widgets/statsformat.h"

#include "widgets/jobtracker.h"
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace ks {

namespace {
// Range changes arrive on every scroll step; recompute once they settle.
constexpr int kRangeDebounceMs = 150;
} // namespace

StatsPanel::StatsPanel(StatsTableModel* model, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(new QTableView(this))
    , m_filter(new QLineEdit(this))
    , m_followVisible(new QCheckBox(tr("Visible range only"), this))
    , m_longestFirst(new QCheckBox(tr("Longest first"), this))
    , m_previous(new QToolButton(this))
    , m_next(new QToolButton(this))
    , m_occurrenceLabel(new QLabel(this))
    , m_rangeLabel(new QLabel(this))
    , m_emptyLabel(new QLabel(this))
    , m_debounce(new QTimer(this))
    , m_tools(new QWidget(this))
    , m_jobs(new JobTracker(this, sharedAnalysisPool()))
{
    m_model->setParent(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(StatsTableModel::kSortRole);
    m_proxy->setFilterKeyColumn(m_model->nameColumn());
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    measureColumnsFromLeadingRows(*m_view);
    m_view->horizontalHeader()->setStretchLastSection(false);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    // Kernel names run long: the user widens the name column once, every table keeps it.
    m_widths = new ColumnWidthMemory(m_view, QString::fromLatin1(m_model->metaObject()->className()));
    connect(m_view->horizontalHeader(), &QHeaderView::sectionClicked, this, [this] { m_userSorted = true; });

    auto* copyTsv = new QAction(tr("Copy Rows (TSV)"), this);
    copyTsv->setShortcut(QKeySequence::Copy);
    copyTsv->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copyTsv, &QAction::triggered, this, &StatsPanel::copyAsTsv);
    auto* copyCsv = new QAction(tr("Copy Rows as CSV"), this);
    connect(copyCsv, &QAction::triggered, this, &StatsPanel::copyAsCsv);
    m_view->addActions({copyTsv, copyCsv});

    m_filter->setPlaceholderText(tr("Filter by name"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, &StatsPanel::setFilterText);
    m_previous->setArrowType(Qt::LeftArrow);
    m_previous->setToolTip(tr("Previous occurrence in the timeline"));
    m_next->setArrowType(Qt::RightArrow);
    m_next->setToolTip(tr("Next occurrence in the timeline"));
    connect(m_previous, &QToolButton::clicked, this, &StatsPanel::previousOccurrence);
    connect(m_next, &QToolButton::clicked, this, &StatsPanel::nextOccurrence);
    connect(m_followVisible, &QCheckBox::toggled, this, &StatsPanel::setFollowVisibleRange);
    connect(m_longestFirst, &QCheckBox::toggled, this, &StatsPanel::setLongestFirst);
    m_followVisible->setToolTip(tr("Statistics for the timeline's visible range instead of the whole trace"));

    auto* tools = new QHBoxLayout(m_tools);
    tools->setContentsMargins(0, 0, 0, 0);
    tools->addWidget(m_filter, 1);
    for (QAction* option : m_model->options()) {
        auto* button = new QToolButton(this);
        button->setDefaultAction(option);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        tools->addWidget(button);
    }
    tools->addWidget(m_followVisible);
    tools->addWidget(m_longestFirst);
    tools->addWidget(m_previous);
    tools->addWidget(m_occurrenceLabel);
    tools->addWidget(m_next);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_tools);
    m_rangeLabel->setObjectName(QStringLiteral("rangeLabel"));
    layout->addWidget(m_rangeLabel);
    m_emptyLabel->setObjectName(QStringLiteral("emptyLabel"));
    m_emptyLabel->setWordWrap(true);
    m_emptyLabel->hide();
    layout->addWidget(m_emptyLabel);
    layout->addWidget(m_view, 1);

    // Each double-click on the same row goes on to its next occurrence (another row starts at 1).
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        m_view->setCurrentIndex(index);
        stepOccurrence(+1);
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        resetOccurrence();
        updateLabels();
    });
    m_debounce->setSingleShot(true);
    connect(m_debounce, &QTimer::timeout, this, &StatsPanel::recompute);
    connect(m_model, &StatsTableModel::recomputeNeeded, this, [this] { scheduleRecompute(0); });
    updateLabels();
}

std::optional<TimeRange> StatsPanel::effectiveRange() const
{
    if (m_selectedRange)
        return m_selectedRange;
    if (m_followVisible->isChecked())
        return m_visibleRange;
    return std::nullopt;
}

void StatsPanel::setTrace(std::shared_ptr<const Trace> trace)
{
    m_trace = std::move(trace);
    m_selectedRange.reset();
    m_visibleRange.reset();
    scheduleRecompute(0);
}

void StatsPanel::setNewerSnapshot(std::shared_ptr<const Trace> trace)
{
    setTrace(std::move(trace));
    m_newerSnapshot = true;
}

void StatsPanel::setRange(TimeNs from, TimeNs to)
{
    m_selectedRange = TimeRange{std::min(from, to), std::max(from, to)};
    scheduleRecompute(kRangeDebounceMs);
}

void StatsPanel::clearRange()
{
    if (!m_selectedRange)
        return;
    m_selectedRange.reset();
    scheduleRecompute(kRangeDebounceMs);
}

void StatsPanel::setVisibleRange(TimeNs from, TimeNs to)
{
    m_visibleRange = TimeRange{from, to};
    if (m_followVisible->isChecked() && !m_selectedRange)
        scheduleRecompute(kRangeDebounceMs);
}

void StatsPanel::setFollowVisibleRange(bool follow)
{
    if (m_followVisible->isChecked() != follow) {
        m_followVisible->setChecked(follow); // comes back here through toggled
        return;
    }
    scheduleRecompute(0);
}

void StatsPanel::setLongestFirst(bool longestFirst)
{
    if (m_longestFirst->isChecked() != longestFirst)
        m_longestFirst->setChecked(longestFirst);
    resetOccurrence();
    updateLabels();
}

void StatsPanel::setFilterText(const QString& text)
{
    if (m_filter->text() != text)
        m_filter->setText(text);
    m_proxy->setFilterFixedString(text);
}

void StatsPanel::scheduleRecompute(int delayMs)
{
    m_jobs->cancel(); // the result of an older request is dropped when it arrives
    m_debounce->start(delayMs);
    updateLabels();
}

void StatsPanel::recompute()
{
    auto onRows = [this](const StatsTableModel::Installer& install) {
        m_computing = false;
        install(*m_model);
        if (!m_userSorted)
            m_view->sortByColumn(m_model->defaultSortColumn(), Qt::DescendingOrder);
        if (!m_columnsSized && m_model->rowCount() > 0) {
            // Once: fit the columns, names within bounds (kernel names run to 800 characters),
            // then the widths the user gave these columns before.
            m_widths->resizeQuietly([this] {
                m_view->resizeColumnsToContents();
                const int name = m_model->nameColumn();
                m_view->setColumnWidth(name,
                                       std::clamp(m_view->columnWidth(name), 20 * fontMetrics().averageCharWidth(),
                                                  60 * fontMetrics().averageCharWidth()));
            });
            m_widths->restore();
            m_columnsSized = true;
        }
        // Empty over the whole trace: say why instead of showing a bare header.
        m_emptyLabel->setText(m_model->emptyText());
        m_emptyLabel->setVisible(m_trace && m_model->rowCount() == 0 && !effectiveRange());
        resetOccurrence();
        updateLabels();
        Q_EMIT rowsUpdated();
    };
    m_computing = true;
    updateLabels();
    m_jobs->start(JobTracker::letFinishIf(std::exchange(m_newerSnapshot, false)),
                  m_model->rowsJob(m_trace, effectiveRange()), std::move(onRows), [this](const QString& error) {
                      m_computing = false;
                      m_rangeLabel->setText(tr("Statistics failed: %1").arg(error));
                  });
}

std::vector<SliceId> StatsPanel::currentOccurrences() const
{
    const QModelIndex current = m_proxy->mapToSource(m_view->currentIndex());
    if (!current.isValid() || !m_trace)
        return {};
    std::vector<SliceId> slices = m_model->occurrences(current.row());
    if (m_longestFirst->isChecked()) {
        const auto& durations = m_trace->slices().duration;
        std::stable_sort(slices.begin(), slices.end(),
                         [&](SliceId a, SliceId b) { return durations[a] > durations[b]; });
    }
    return slices;
}

void StatsPanel::resetOccurrence()
{
    m_occurrenceRow = m_proxy->mapToSource(m_view->currentIndex()).row();
    m_occurrenceIndex = -1;
}

void StatsPanel::nextOccurrence() { stepOccurrence(+1); }

void StatsPanel::previousOccurrence() { stepOccurrence(-1); }

void StatsPanel::stepOccurrence(int delta)
{
    const auto slices = currentOccurrences();
    if (slices.empty())
        return;
    if (m_proxy->mapToSource(m_view->currentIndex()).row() != m_occurrenceRow)
        resetOccurrence();
    const int n = int(slices.size());
    m_occurrenceIndex = m_occurrenceIndex < 0 ? (delta > 0 ? 0 : n - 1) : (m_occurrenceIndex + delta + n) % n;
    updateLabels();
    Q_EMIT occurrenceRequested(slices[std::size_t(m_occurrenceIndex)]);
}

void StatsPanel::updateLabels()
{
    const auto count = currentOccurrences().size();
    m_previous->setEnabled(count > 0);
    m_next->setEnabled(count > 0);
    m_occurrenceLabel->setText(count == 0                  ? QString()
                                   : m_occurrenceIndex < 0 ? tr("%n occurrence(s)", nullptr, int(count))
                                                           : tr("%1 / %2").arg(m_occurrenceIndex + 1).arg(count));
    const auto range = effectiveRange();
    const bool pending = m_debounce->isActive() || (m_computing && m_trace);
    QString text = range
        ? tr("Range %1 – %2 (%3)")
              .arg(QString::fromStdString(formatDuration(range->from - (m_trace ? m_trace->startTime() : 0))),
                   QString::fromStdString(formatDuration(range->to - (m_trace ? m_trace->startTime() : 0))),
                   statsDuration(range->to - range->from))
        : tr("Whole trace");
    if (pending)
        text += tr(" · updating…");
    m_rangeLabel->setText(text);
}

QString StatsPanel::rowsAsText(QChar separator) const
{
    QList<int> rows;
    const auto selected = m_view->selectionModel()->selectedRows();
    if (selected.isEmpty()) {
        for (int r = 0; r < m_proxy->rowCount(); ++r)
            rows << r;
    } else {
        for (const auto& index : selected)
            rows << index.row();
        std::sort(rows.begin(), rows.end());
    }
    return statsDelimitedText(*m_proxy, rows, separator);
}

void StatsPanel::copyAsTsv() { QApplication::clipboard()->setText(rowsAsText(QLatin1Char('\t'))); }

void StatsPanel::copyAsCsv() { QApplication::clipboard()->setText(rowsAsText(QLatin1Char(','))); }

} // namespace ks
