#include "app/notescontroller.h"

#include "core/notes/sidecar.h"
#include "widgets/notespanel.h"
#include "widgets/timelinewidget.h"

#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QMainWindow>
#include <QStatusBar>

namespace ks {

NotesController::NotesController(QMainWindow* window, TimelineWidget* timeline, NotesPanel* panel)
    : QObject(window)
    , m_window(window)
    , m_timeline(timeline)
    , m_panel(panel)
{
    connect(m_panel, &NotesPanel::notesEdited, this, &NotesController::save);
}

QString NotesController::sidecarPath() const
{
    return m_tracePath.isEmpty()
        ? QString()
        : QFile::decodeName(notes::sidecarPath(QFile::encodeName(m_tracePath).toStdString()).c_str());
}

void NotesController::showTrace(const std::shared_ptr<const Trace>& trace, const QString& path)
{
    const QString view = std::exchange(m_pendingView, QString());
    m_tracePath.clear();
    m_writable = false;
    if (!trace || path.isEmpty() || m_timeline->traceCount() != 1) {
        m_panel->setUnavailable(trace ? tr("Notes are kept for a single trace file; this view shows %n traces or a "
                                           "recording not saved yet.",
                                           nullptr, int(m_timeline->traceCount()))
                                      : tr("Open a trace file to keep notes with it."));
        if (!view.isEmpty() && trace)
            showMessage(tr("--view %1: views are kept for a single trace file").arg(view));
        return;
    }
    m_tracePath = path;
    notes::SidecarRead read = notes::readSidecar(QFile::encodeName(path).toStdString());
    const QString sidecar = QFileInfo(sidecarPath()).fileName();
    switch (read.status) {
    case notes::SidecarRead::Status::Missing: m_writable = true; break;
    case notes::SidecarRead::Status::Loaded:
        m_writable = true;
        if (const std::size_t dropped = notes::fitToTrace(read.notes, *trace); dropped > 0)
            showMessage(tr("%1: %n entries that this trace lacks were left out", nullptr, int(dropped)).arg(sidecar));
        break;
    case notes::SidecarRead::Status::Refused:
    case notes::SidecarRead::Status::Unreadable:
        read.notes = {};
        showMessage(tr("Notes not loaded: %1 holds %2; it is left as it is")
                        .arg(sidecar, QString::fromStdString(read.message)));
        break;
    }
    // A trace with notes brings the dock up (it starts hidden).
    auto* dock = qobject_cast<QDockWidget*>(m_panel->parentWidget());
    if (dock && !read.notes.empty())
        dock->show();
    m_panel->setNotes(std::move(read.notes));
    if (view.isEmpty())
        return;
    if (!m_panel->openView(view))
        showMessage(tr("No view named \"%1\" in %2").arg(view, sidecar));
}

void NotesController::save()
{
    if (m_tracePath.isEmpty())
        return;
    const QString sidecar = QFileInfo(sidecarPath()).fileName();
    if (!m_writable) {
        showMessage(tr("Notes not saved: %1 belongs to another trace or version; move it away to keep notes here")
                        .arg(sidecar));
        return;
    }
    std::string error;
    if (!notes::writeSidecar(QFile::encodeName(m_tracePath).toStdString(), m_panel->notes(), &error))
        showMessage(tr("Notes not saved: %1").arg(QString::fromStdString(error)));
}

void NotesController::showMessage(const QString& message) { m_window->statusBar()->showMessage(message); }

} // namespace ks
