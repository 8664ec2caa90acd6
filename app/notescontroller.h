#pragma once
// Notes and views kept beside the trace (issue 41): when a lone trace file opens, its sidecar
// FILE.kinetoscope.json (core/notes/sidecar.h) fills the Notes dock and the ruler's marks;
// every edit in the dock writes it back. A sidecar of another trace or version, or a
// malformed one, is refused with a message in the status bar: the trace opens without notes
// and that file is never overwritten (the notes made then stay in memory, and the message
// says so). `kinetoscope --view NAME FILE` opens a saved view: openViewOnLoad(). GUI thread only.
#include "core/model/trace.h"

#include <QObject>
#include <QString>

#include <memory>

class QMainWindow;

namespace ks {

class NotesPanel;
class TimelineWidget;

class NotesController : public QObject {
    Q_OBJECT
public:
    NotesController(QMainWindow* window, TimelineWidget* timeline, NotesPanel* panel);

    NotesPanel* panel() const { return m_panel; }
    // The view of that name is applied once the next trace file has opened (--view).
    void openViewOnLoad(const QString& name) { m_pendingView = name; }
    // The trace shown's sidecar, or "" without one (several traces, no file).
    QString sidecarPath() const;

public Q_SLOTS:
    // After the window shows `trace`, the file `path` ("" when none).
    void showTrace(const std::shared_ptr<const ks::Trace>& trace, const QString& path);

private:
    void save();
    void showMessage(const QString& message);

    QMainWindow* m_window;
    TimelineWidget* m_timeline;
    NotesPanel* m_panel;
    QString m_tracePath; // "" when notes are unavailable
    QString m_pendingView;
    bool m_writable = false; // false: the sidecar there is not ours to overwrite
};

} // namespace ks
