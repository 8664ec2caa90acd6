#pragma once
// The Notes dock (issue 41): the marks of the trace shown (a time or a range, with a note)
// and its named views. Add Mark marks the selected range, else the selected slice, else the
// middle of the view; a note is edited in place (double-click); Delete removes the mark; a
// click on a mark shows it on the timeline (a range is selected). Views: Save View As…
// names the timeline's view, a double-click (or Open) brings one back. Every change emits
// notesEdited(), on which the app saves the sidecar (app/notescontroller.h). GUI thread only.
#include "core/notes/tracenotes.h"

#include <QWidget>

class QAction;
class QLabel;
class QListWidget;
class QPushButton;
class QTableView;

namespace ks {

class NotesModel;
class TimelineWidget;

class NotesPanel : public QWidget {
    Q_OBJECT
public:
    explicit NotesPanel(TimelineWidget* timeline, QWidget* parent = nullptr);

    // The notes of the trace shown: they follow the timeline's primary trace.
    void setNotes(notes::TraceNotes notes);
    notes::TraceNotes notes() const;
    // No notes here (several traces, a recording without a file): the panel says why.
    void setUnavailable(const QString& why);
    bool isAvailable() const { return m_available; }

    NotesModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QListWidget* viewList() const { return m_views; }
    // For the View menu: Add Mark (M) and Save View As… (they act on the timeline shown).
    QAction* addMarkAction() const { return m_addMark; }
    QAction* saveViewAction() const { return m_saveView; }

public Q_SLOTS:
    void addMark();
    void addMarkAt(ks::TimeNs start, ks::TimeNs end, const QString& note);
    void deleteCurrentMark();
    // Shows mark `row` on the timeline: a range is selected and zoomed to, a time centred.
    void showMark(int row);
    // Saves the timeline's view as `name` (replacing one of that name).
    void saveViewAs(const QString& name);
    // False when there is no view of that name.
    bool openView(const QString& name);
    void deleteView(const QString& name);

Q_SIGNALS:
    void notesEdited();

private:
    void askViewName();
    void rebuildViewList();
    void updateActions();

    TimelineWidget* m_timeline;
    NotesModel* m_model;
    QTableView* m_view;
    QListWidget* m_views;
    QLabel* m_message;
    QAction* m_addMark;
    QAction* m_saveView;
    QPushButton* m_deleteMark;
    QPushButton* m_openView;
    QPushButton* m_deleteView;
    std::vector<notes::SavedView> m_savedViews;
    bool m_available = false;
};

} // namespace ks
