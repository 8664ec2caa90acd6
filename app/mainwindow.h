#pragma once
// The main window: file handling (Open, Open Recent, Close, drag and drop), background
// loading with progress and Cancel, the timeline with its search bar, and docks.
//
// Other panels hook in through:
//   - addPanel(dock, area): docks it, lists it in the View menu and restores its state;
//   - traceChanged(trace): emitted after a trace is shown (null when closed); with several
//     traces open (ranks of a run, a comparison) it is the primary one (rank 0, BASE);
//   - timeline(): the TimelineWidget, whose revealSlice(SliceId) selects and shows a
//     slice and whose selectionChanged / visibleRangeChanged signals report the user's
//     navigation (see widgets/timelinewidget.h); revealSlice() here forwards to it.
#include "core/model/trace.h"

#include <QMainWindow>

#include <memory>
#include <vector>

class QDockWidget;
class QLabel;
class QMimeData;
class QMenu;
class QProgressBar;
class QPushButton;
class QToolButton;

namespace ks {

class DetailsPanel;
class DiagnosticsPanel;
class CriticalPathPanel;
class DiffPanel;
class FlameGraphPanel;
class RanksPanel;
class JobController;
class JobViewPanel;
class RecentFiles;
struct LoadedFile;
class NotesController;
class StepChoices;
class WorkspaceController;
class SearchBar;
class TimelineWidget;
class TraceLoadJob;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    TimelineWidget* timeline() const { return m_timeline; }
    DetailsPanel* detailsPanel() const { return m_details; }
    SearchBar* searchBar() const { return m_search; }
    DiagnosticsPanel* diagnosticsPanel() const { return m_diagnostics; }
    DiffPanel* diffPanel() const { return m_diffPanel; }
    FlameGraphPanel* flameGraphPanel() const { return m_flamePanel; }
    RanksPanel* ranksPanel() const { return m_ranksPanel; }
    WorkspaceController* workspace() const { return m_workspace; }
    NotesController* notes() const { return m_notes; }
    JobController* job() const { return m_job; }
    JobViewPanel* jobPanel() const { return m_jobPanel; }
    // The file shown (Save As writes it): a merged file whole, though its ranks are shown apart.
    std::shared_ptr<const Trace> trace() const { return m_wholeFile ? m_wholeFile : m_trace; }
    QString currentFile() const { return m_file; }
    bool isLoading() const;

    void addPanel(QDockWidget* dock, Qt::DockWidgetArea area);
    // Shows a trace that has no file (a live recording's snapshot), titled `title`;
    // `newerSnapshot`: it continues the trace shown (TimelineWidget::setNewerSnapshot()).
    void showTrace(std::shared_ptr<const Trace> trace, const QString& title, bool newerSnapshot = false);
    // Opens the local files of dropped data (several: one workspace); false if it holds none.
    bool openDroppedData(const QMimeData* mime);
    // Installed copy first, then the source tree's resources/.
    static QString demoTracePath();

public Q_SLOTS:
    void openFile(const QString& path);
    // Several files (folders stand for their traces) in parallel: one file opens as
    // before, several as the ranks of a run on one timeline.
    void openFiles(const QStringList& paths);
    // BASE above NEW, aligned at their first common step.
    void openComparison(const QString& basePath, const QString& newPath);
    // Compares the open trace (BASE) with another (NEW).
    void compareWith(const QString& newPath);
    void openDemo();
    // A folder of rank summaries (kinetoscope-cli summarize): the Job dock and one row of
    // collectives per rank; chosen ranks load in full on demand (JobController).
    void openJobFolder(const QString& folder);
    void closeTrace();
    void cancelLoading();
    void revealSlice(ks::SliceId slice);

Q_SIGNALS:
    void traceChanged(std::shared_ptr<const ks::Trace> trace);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createActions();
    void createDocks();
    void arrangeDefaultDocks();
    QDockWidget* addOnDemandDock(const QString& title, const char* objectName, QWidget* widget);
    void tabHiddenDocksIntoTheBottomStrip();
    enum class OpenKind { Files, Comparison };
    void startLoading(const QStringList& paths, OpenKind kind);
    void onLoaded(const std::vector<LoadedFile>& loaded);
    void onFailed(const QString& path, const QString& message);
    void onProgress(quint64 bytesDone, quint64 bytesTotal, quint64 events, int filesDone, int files);
    void showWorkspace(const std::vector<LoadedFile>& files, OpenKind kind, QStringList messages);
    void createWorkspaceActions(QMenu* file);
    void setLoadingUi(bool loading);
    void setTrace(std::shared_ptr<const Trace> trace, const QString& path, bool newerSnapshot = false);
    // Everything but the timeline follows `trace` (the primary one of a workspace).
    void adoptTrace(std::shared_ptr<const Trace> trace, const QString& path, const QString& title);
    void rebuildFlowMenu();
    void updateHistoryActions();

    std::shared_ptr<const Trace> m_trace; // the primary member's
    std::shared_ptr<const Trace> m_wholeFile; // a merged file opened as its ranks
    QString m_file;
    TimelineWidget* m_timeline = nullptr;
    SearchBar* m_search = nullptr;
    DetailsPanel* m_details = nullptr;
    DiagnosticsPanel* m_diagnostics = nullptr;
    QDockWidget* m_diagnosticsDock = nullptr;
    TraceLoadJob* m_loader = nullptr;
    OpenKind m_loadKind = OpenKind::Files;
    // Compare With…: the open trace stays loaded as BASE while NEW loads.
    std::shared_ptr<const Trace> m_pendingBase;
    QString m_pendingBasePath;
    QStringList m_openProblems; // paths of a multi-file open that gave no file to load
    DiffPanel* m_diffPanel = nullptr;
    FlameGraphPanel* m_flamePanel = nullptr;
    std::vector<QDockWidget*> m_onDemandDocks; // hidden until asked for from the View menu
    CriticalPathPanel* m_criticalPath = nullptr; // made with the docks, before m_workspace
    RanksPanel* m_ranksPanel = nullptr;
    QDockWidget* m_diffDock = nullptr;
    QDockWidget* m_ranksDock = nullptr;
    WorkspaceController* m_workspace = nullptr;
    JobViewPanel* m_jobPanel = nullptr;
    QDockWidget* m_jobDock = nullptr;
    JobController* m_job = nullptr;
    StepChoices* m_stepChoices = nullptr;
    NotesController* m_notes = nullptr;
    QMenu* m_alignMenu = nullptr;
    RecentFiles* m_recentFiles = nullptr;
    QMenu* m_viewMenu = nullptr;
    QMenu* m_flowMenu = nullptr;
    QAction* m_backAction = nullptr;
    QAction* m_forwardAction = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QToolButton* m_warningsButton = nullptr;
    QLabel* m_statusLabel = nullptr;
};

} // namespace ks
