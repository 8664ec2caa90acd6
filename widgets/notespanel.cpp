#include "widgets/notespanel.h"

#include "widgets/notesmodel.h"
#include "widgets/savedviews.h"
#include "widgets/timelinewidget.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace ks {

NotesPanel::NotesPanel(TimelineWidget* timeline, QWidget* parent)
    : QWidget(parent)
    , m_timeline(timeline)
    , m_model(new NotesModel(this))
    , m_view(new QTableView(this))
    , m_views(new QListWidget(this))
    , m_message(new QLabel(this))
    , m_addMark(new QAction(tr("Add &Mark"), this))
    , m_saveView(new QAction(tr("Save View &As…"), this))
    , m_deleteMark(new QPushButton(tr("Delete"), this))
    , m_openView(new QPushButton(tr("Open"), this))
    , m_deleteView(new QPushButton(tr("Delete"), this))
{
    m_addMark->setShortcut(QKeySequence(Qt::Key_M));
    m_addMark->setToolTip(tr("Mark the selected range, else the selected slice, else the middle of the view"));
    m_saveView->setToolTip(tr("Keep the timeline's range, selection and track layout under a name"));
    connect(m_addMark, &QAction::triggered, this, &NotesPanel::addMark);
    connect(m_saveView, &QAction::triggered, this, &NotesPanel::askViewName);

    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->verticalHeader()->hide();
    connect(m_view, &QTableView::clicked, this, [this](const QModelIndex& index) { showMark(index.row()); });
    connect(m_model, &NotesModel::marksEdited, this, &NotesPanel::notesEdited);
    // The ruler shows the marks as they are here.
    const auto showOnRuler = [this] { m_timeline->setMarks(m_model->marks()); };
    connect(m_model, &NotesModel::marksEdited, this, showOnRuler);
    connect(m_model, &NotesModel::modelReset, this, showOnRuler);
    connect(m_deleteMark, &QPushButton::clicked, this, &NotesPanel::deleteCurrentMark);

    connect(m_views, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem* item) { openView(item->text()); });
    connect(m_openView, &QPushButton::clicked, this, [this] {
        if (QListWidgetItem* item = m_views->currentItem())
            openView(item->text());
    });
    connect(m_deleteView, &QPushButton::clicked, this, [this] {
        if (QListWidgetItem* item = m_views->currentItem())
            deleteView(item->text());
    });

    auto* markButtons = new QHBoxLayout;
    auto* add = new QToolButton(this);
    add->setDefaultAction(m_addMark);
    markButtons->addWidget(add);
    markButtons->addWidget(m_deleteMark);
    markButtons->addStretch(1);
    auto* viewButtons = new QHBoxLayout;
    auto* save = new QToolButton(this);
    save->setDefaultAction(m_saveView);
    viewButtons->addWidget(new QLabel(tr("Views:"), this));
    viewButtons->addWidget(save);
    viewButtons->addWidget(m_openView);
    viewButtons->addWidget(m_deleteView);
    viewButtons->addStretch(1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_message);
    layout->addLayout(markButtons);
    layout->addWidget(m_view, 3);
    layout->addLayout(viewButtons);
    layout->addWidget(m_views, 1);
    m_message->setWordWrap(true);
    setUnavailable(tr("Open a trace file to keep notes with it."));
}

void NotesPanel::setNotes(notes::TraceNotes notes)
{
    m_available = true;
    m_message->hide();
    const auto trace = m_timeline->trace();
    m_model->setMarks(std::move(notes.marks), trace ? trace->startTime() : 0);
    m_savedViews = std::move(notes.views);
    rebuildViewList();
    updateActions();
}

notes::TraceNotes NotesPanel::notes() const { return {m_model->marks(), m_savedViews}; }

void NotesPanel::setUnavailable(const QString& why)
{
    m_available = false;
    m_model->setMarks({}, 0);
    m_savedViews.clear();
    rebuildViewList();
    m_message->setText(why);
    m_message->show();
    updateActions();
}

void NotesPanel::addMark()
{
    if (!m_available)
        return;
    if (m_timeline->hasSelectedRange()) {
        const TimeExtent range = m_timeline->selectedRange();
        addMarkAt(range.start, range.end, QString());
        return;
    }
    const auto trace = m_timeline->trace();
    const SliceId slice = m_timeline->selectedSlice();
    if (trace && m_timeline->currentTrace() == 0 && slice != kNoSlice) {
        const TimeNs start = trace->slices().start[slice];
        addMarkAt(start, trace->slices().end(slice), QString::fromUtf8(trace->str(trace->slices().name[slice])));
        return;
    }
    const TimeExtent visible = m_timeline->focusRange();
    const TimeNs middle = visible.start + (visible.end - visible.start) / 2;
    addMarkAt(middle, middle, QString());
}

void NotesPanel::addMarkAt(TimeNs start, TimeNs end, const QString& note)
{
    if (!m_available)
        return;
    const int row = m_model->addMark({std::min(start, end), std::max(start, end), note.toStdString()});
    const QModelIndex index = m_model->index(row, NotesModel::NoteColumn);
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
    updateActions();
}

void NotesPanel::deleteCurrentMark()
{
    const QModelIndex current = m_view->currentIndex();
    if (current.isValid())
        m_model->removeMark(current.row());
    updateActions();
}

void NotesPanel::showMark(int row)
{
    if (row < 0 || row >= m_model->rowCount())
        return;
    const notes::Mark& mark = m_model->marks()[std::size_t(row)];
    if (mark.isRange()) {
        // The range with a tenth of its length on either side.
        const TimeNs margin = std::max<TimeNs>(1, (mark.end - mark.start) / 10);
        m_timeline->setVisibleRange(mark.start - margin, mark.end + margin);
        m_timeline->setSelectedRange(mark.start, mark.end);
    } else {
        // Centred at the zoom of the moment.
        const TimeScale scale = m_timeline->timeScale();
        const TimeNs half = std::max<TimeNs>(1, (scale.viewEnd(m_timeline->timeAreaWidth()) - scale.viewStart()) / 2);
        m_timeline->setVisibleRange(mark.start - half, mark.start + half);
    }
}

void NotesPanel::askViewName()
{
    if (!m_available)
        return;
    bool ok = false;
    const QString name =
        QInputDialog::getText(this, tr("Save View As"), tr("Name of the view:"), QLineEdit::Normal, QString(), &ok)
            .trimmed();
    if (ok && !name.isEmpty())
        saveViewAs(name);
}

void NotesPanel::saveViewAs(const QString& name)
{
    if (!m_available || name.isEmpty())
        return;
    notes::TraceNotes all{{}, std::move(m_savedViews)};
    all.putView(captureView(*m_timeline, name.toStdString()));
    m_savedViews = std::move(all.views);
    rebuildViewList();
    Q_EMIT notesEdited();
}

bool NotesPanel::openView(const QString& name)
{
    const std::string wanted = name.toStdString();
    const auto it = std::find_if(m_savedViews.begin(), m_savedViews.end(),
                                 [&](const notes::SavedView& view) { return view.name == wanted; });
    if (!m_available || it == m_savedViews.end())
        return false;
    applyView(*m_timeline, *it);
    return true;
}

void NotesPanel::deleteView(const QString& name)
{
    const std::string wanted = name.toStdString();
    if (std::erase_if(m_savedViews, [&](const notes::SavedView& view) { return view.name == wanted; }) == 0)
        return;
    rebuildViewList();
    Q_EMIT notesEdited();
}

void NotesPanel::rebuildViewList()
{
    m_views->clear();
    for (const notes::SavedView& view : m_savedViews)
        m_views->addItem(QString::fromStdString(view.name));
    updateActions();
}

void NotesPanel::updateActions()
{
    m_addMark->setEnabled(m_available);
    m_saveView->setEnabled(m_available);
    m_deleteMark->setEnabled(m_available && m_model->rowCount() > 0);
    m_openView->setEnabled(m_available && m_views->count() > 0);
    m_deleteView->setEnabled(m_available && m_views->count() > 0);
}

} // namespace ks
