#include "app/mainwindow.h"

#include "app/aboutdialog.h"
#include "app/alignmenu.h"
#include "app/colortheme.h"
#include "app/emptyhint.h"
#include "app/exportmenu.h"
#include "app/jobcontroller.h"
#include "app/notescontroller.h"
#include "app/recentfiles.h"
#include "app/recordingcontroller.h"
#include "app/shortcutshelp.h"
#include "app/stepchoices.h"
#include "app/timelinekeys.h"
#include "app/traceloadjob.h"
#include "app/windowrecordinghost.h"
#include "app/workspacecontroller.h"
#include "core/analysis/workspace.h"
#include "widgets/criticalpathpanel.h"
#include "widgets/detailspanel.h"
#include "widgets/diagnosticspanel.h"
#include "widgets/diffpanel.h"
#include "widgets/flamegraphpanel.h"
#include "widgets/gpuoverlaypanel.h"
#include "widgets/gpusummarypanel.h"
#include "widgets/gpuviews.h"
#include "widgets/notespanel.h"
#include "widgets/rankspanel.h"
#include "widgets/searchbar.h"
#include "widgets/timelinewidget.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace ks {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_timeline(new TimelineWidget(this))
    , m_search(new SearchBar(this))
    , m_details(new DetailsPanel(this))
    , m_diagnostics(new DiagnosticsPanel(this))
    , m_loader(new TraceLoadJob(this))
    , m_diffPanel(new DiffPanel(this))
    , m_ranksPanel(new RanksPanel(this))
{
    setWindowTitle(tr("Kinetoscope"));
    setAcceptDrops(true);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_search);
    layout->addWidget(m_timeline, 1);
    m_search->hide();
    setCentralWidget(central);

    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(240);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_warningsButton = new QToolButton(this);
    m_warningsButton->setObjectName(QStringLiteral("warningsButton"));
    m_warningsButton->setAutoRaise(true);
    m_warningsButton->setToolTip(tr("What the loader found: warnings, then information about the format"));
    m_statusLabel = new QLabel(this);
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_warningsButton);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancelButton);
    m_warningsButton->hide();
    setLoadingUi(false);

    createDocks();
    m_workspace = new WorkspaceController(m_timeline, m_details, m_diffPanel, m_ranksPanel, this);
    connect(m_workspace, &WorkspaceController::ranksChanged, m_criticalPath, &CriticalPathPanel::setRanks);
    connect(m_workspace, &WorkspaceController::statusMessage, m_statusLabel, &QLabel::setText);
    m_job = new JobController(m_timeline, m_jobPanel, this);
    connect(m_job, &JobController::statusMessage, m_statusLabel, &QLabel::setText);
    connect(m_job, &JobController::rankTraceOpened, this,
            [this](std::shared_ptr<const Trace> trace, const QString& path) {
                adoptTrace(std::move(trace), path, QFileInfo(path).fileName());
            });
    createActions();
    // File ▸ Record…, Stop Recording, Save As…
    auto* recording = new RecordingController(std::make_unique<WindowRecordingHost>(this), this);
    auto* emptyHint = new EmptyTraceHint(m_timeline->viewport());
    // What the timeline draws, not the docks' trace: a job's summary rows have none of the latter.
    connect(m_timeline, &TimelineWidget::traceChanged, emptyHint, &EmptyTraceHint::setTrace);
    connect(emptyHint, &EmptyTraceHint::demoRequested, this, &MainWindow::openDemo);
    connect(emptyHint, &EmptyTraceHint::recordRequested, recording, &RecordingController::record);
    connect(emptyHint, &EmptyTraceHint::openRequested, this,
            [this] { findChild<QAction*>(QStringLiteral("openAction"))->trigger(); });

    connect(m_cancelButton, &QPushButton::clicked, this, &MainWindow::cancelLoading);
    connect(m_loader, &TraceLoadJob::progressChanged, this, &MainWindow::onProgress);
    connect(m_loader, &TraceLoadJob::finished, this, &MainWindow::onLoaded);
    connect(m_loader, &TraceLoadJob::cancelled, this, [this](const QStringList& paths) {
        setLoadingUi(false);
        m_pendingBase.reset();
        m_statusLabel->setText(paths.size() == 1 ? tr("Loading %1 cancelled").arg(QFileInfo(paths.front()).fileName())
                                                 : tr("Loading %n files cancelled", nullptr, int(paths.size())));
    });

    // Details and search follow the trace of the last selection (a rank, BASE or NEW).
    connect(m_timeline, &TimelineWidget::currentTraceChanged, this,
            [this](std::uint32_t, const std::shared_ptr<const Trace>& trace) {
                m_details->setTrace(trace);
                m_search->setTrace(trace);
            });
    connect(m_timeline, &TimelineWidget::selectionChanged, m_details, &DetailsPanel::showSlice);
    connect(m_timeline, &TimelineWidget::instantSelected, m_details, &DetailsPanel::showInstant);
    connect(m_timeline, &TimelineWidget::historyChanged, this, &MainWindow::updateHistoryActions);
    connect(m_details, &DetailsPanel::flowTargetActivated, m_timeline, &TimelineWidget::revealSlice);
    connect(m_search, &SearchBar::matchActivated, m_timeline, &TimelineWidget::revealSlice);
    connect(m_search, &SearchBar::highlightChanged, m_timeline,
            [this](const std::vector<bool>& names) { m_timeline->setHighlightedNames(names); });
    connect(m_search, &SearchBar::sliceMatchesChanged, m_timeline, &TimelineWidget::setSearchSliceMatches);

    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray())) {
        // First run: a large window, but never larger than the screen (1280×720 laptops);
        // the size excludes the title bar, so a tenth of the height is left for the frame.
        const QSize available = screen() ? screen()->availableGeometry().size() : QSize(1600, 1000);
        resize(std::min(1600, available.width()), std::min(1000, available.height() * 9 / 10));
    }
    if (!restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray()))
        arrangeDefaultDocks();
    tabHiddenDocksIntoTheBottomStrip();
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, [this] {
        const QStringList paths = QFileDialog::getOpenFileNames(
            this, tr("Open Traces (several: the ranks of a run)"), QFileInfo(m_file).absolutePath(),
            tr("PyTorch profiler traces (*.json *.json.gz *.gz);;All files (*)"));
        if (!paths.isEmpty())
            openFiles(paths);
    });
    open->setShortcut(QKeySequence::Open);
    open->setObjectName(QStringLiteral("openAction"));
    createWorkspaceActions(file);
    m_recentFiles = new RecentFiles(file->addMenu(tr("Open &Recent")), this);
    connect(m_recentFiles, &RecentFiles::openRequested, this, &MainWindow::openFile);
    file->addAction(tr("Open &Demo Trace"), this, &MainWindow::openDemo);
    // File > Export: the timeline as an image, every table as CSV (issue 41).
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    installExportMenu(*exportMenu, *this, *m_timeline);
    QAction* close = file->addAction(tr("&Close"), this, &MainWindow::closeTrace);
    close->setShortcut(QKeySequence::Close);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    QAction* find = m_viewMenu->addAction(tr("&Find…"), m_search, &SearchBar::activate);
    find->setShortcuts({QKeySequence::Find, QKeySequence(Qt::Key_Slash)});
    const TimelineKeyActions timelineKeys = addTimelineKeyActions(*m_viewMenu, *m_timeline);
    m_viewMenu->addSeparator();
    m_backAction = m_viewMenu->addAction(tr("&Back"), m_timeline, &TimelineWidget::goBack);
    m_backAction->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
    m_forwardAction = m_viewMenu->addAction(tr("&Forward"), m_timeline, &TimelineWidget::goForward);
    m_forwardAction->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));
    // Text fields take '[' and ']' as text first (QLineEdit accepts the shortcut override).
    m_viewMenu->addAction(tr("Follow &Incoming Flow"), m_timeline, &TimelineWidget::followIncomingFlow)
        ->setShortcut(QKeySequence(Qt::Key_BracketLeft));
    m_viewMenu->addAction(tr("Follow &Outgoing Flow"), m_timeline, &TimelineWidget::followOutgoingFlow)
        ->setShortcut(QKeySequence(Qt::Key_BracketRight));
    QAction* allFlows = m_viewMenu->addAction(tr("Show All Flows in View"));
    allFlows->setCheckable(true);
    allFlows->setToolTip(tr("Draw every flow arrow in view (at most %1)").arg(TimelineRenderer::kMaxFlowsInView));
    connect(allFlows, &QAction::toggled, m_timeline, &TimelineWidget::setShowAllFlows);
    m_flowMenu = m_viewMenu->addMenu(tr("Flow &Categories"));
    QAction* criticalPath = m_viewMenu->addAction(tr("&Critical Path"));
    criticalPath->setObjectName(QStringLiteral("criticalPathAction"));
    criticalPath->setCheckable(true);
    criticalPath->setToolTip(tr("Highlight the step's critical path on the timeline and dim the rest"));
    connect(criticalPath, &QAction::toggled, this, [this](bool on) {
        m_criticalPath->setPathHighlighted(on);
        auto* dock = findChild<QDockWidget*>(QStringLiteral("criticalPathDock"));
        if (on && dock) {
            dock->show();
            dock->raise();
        }
    });
    m_viewMenu->addAction(m_notes->panel()->addMarkAction());
    m_viewMenu->addAction(m_notes->panel()->saveViewAction());
    // Issue 19: GPU metrics are tracks in each GPU's group unless the old block is asked for.
    if (auto* gpuViews = findChild<GpuViews*>()) {
        QAction* block = m_viewMenu->addAction(tr("GPU Metrics as a Separate &Block"));
        block->setCheckable(true);
        connect(block, &QAction::toggled, gpuViews, [gpuViews](bool on) {
            gpuViews->setOverlayBlockShown(on);
            QSettings().setValue(QStringLiteral("timeline/gpuMetricsBlock"), on);
        });
        block->setChecked(QSettings().value(QStringLiteral("timeline/gpuMetricsBlock"), false).toBool());
    }
    QAction* gpuFirst = m_viewMenu->addAction(tr("&GPU Groups First"), m_timeline, &TimelineWidget::setGpuFirst);
    gpuFirst->setCheckable(true);
    connect(m_timeline, &TimelineWidget::traceChanged, gpuFirst,
            [this, gpuFirst] { gpuFirst->setChecked(m_timeline->gpuFirst()); });
    m_viewMenu->addMenu(m_alignMenu);
    addColorThemeMenu(*m_viewMenu);
    m_viewMenu->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        m_viewMenu->addAction(dock->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Kinetoscope"), this, [this] { showAboutDialog(this); });
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    help->addSeparator();

    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolBar"));
    toolbar->addAction(open);
    toolbar->addSeparator();
    toolbar->addAction(m_backAction);
    toolbar->addAction(m_forwardAction);
    toolbar->addAction(timelineKeys.fitAll);
    toolbar->addAction(timelineKeys.fitSelection);
    toolbar->addAction(allFlows);
    toolbar->addAction(criticalPath);
    toolbar->addAction(find);
    installShortcutsHelp(*this, *help);
    updateHistoryActions();
}

void MainWindow::createWorkspaceActions(QMenu* file)
{
    file->addAction(tr("Open &Folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Every Trace in a Folder"),
                                                              QFileInfo(m_file).absolutePath());
        if (!dir.isEmpty())
            openFiles({dir});
    });
    file->addAction(tr("Open &Job Folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a Folder of Rank Summaries"),
                                                              QFileInfo(m_file).absolutePath());
        if (!dir.isEmpty())
            openJobFolder(dir);
    });
    file->addAction(tr("Compare &With…"), this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Compare With (NEW)"), QFileInfo(m_file).absolutePath(),
                                         tr("PyTorch profiler traces (*.json *.json.gz *.gz);;All files (*)"));
        if (!path.isEmpty())
            compareWith(path);
    });

    m_alignMenu = new AlignMenu(m_workspace, m_timeline, this);
}

void MainWindow::addPanel(QDockWidget* dock, Qt::DockWidgetArea area)
{
    if (dock->objectName().isEmpty())
        dock->setObjectName(dock->windowTitle());
    addDockWidget(area, dock);
    m_viewMenu->addAction(dock->toggleViewAction());
    restoreDockWidget(dock);
}

QString MainWindow::demoTracePath()
{
    const QString demo = QStringLiteral("demo.pt.trace.json.gz");
    QString installed = QCoreApplication::applicationDirPath() + QStringLiteral("/../share/kinetoscope/") + demo;
    if (QFileInfo::exists(installed))
        return installed;
    return QStringLiteral(KS_SOURCE_RESOURCES "/") + demo;
}

bool MainWindow::isLoading() const { return m_loader->isRunning(); }

void MainWindow::openFile(const QString& path) { openFiles({path}); }

void MainWindow::openFiles(const QStringList& paths)
{
    if (paths.size() == 1 && analysis::isRankSummaryFolder(QFile::encodeName(paths.front()).toStdString())) {
        openJobFolder(paths.front());
        return;
    }
    // A lone file keeps the single-file path: the loader names its error, in a dialog.
    if (paths.size() == 1 && !QFileInfo(paths.front()).isDir()) {
        m_openProblems.clear();
        startLoading(paths, OpenKind::Files);
        return;
    }
    std::vector<std::string> given;
    for (const QString& path : paths)
        given.push_back(QFile::encodeName(path).toStdString());
    std::vector<analysis::FileError> errors;
    QStringList expanded;
    for (const std::string& file : analysis::expandTracePaths(given, errors))
        expanded << QFile::decodeName(file.c_str());
    m_openProblems.clear();
    for (const analysis::FileError& error : errors)
        m_openProblems << QStringLiteral("%1: %2").arg(QFile::decodeName(error.file.c_str()),
                                                       QString::fromStdString(error.message));
    if (expanded.isEmpty()) {
        onFailed(paths.join(QStringLiteral(", ")), m_openProblems.join(QLatin1Char('\n')));
        return;
    }
    startLoading(expanded, OpenKind::Files);
}

void MainWindow::openJobFolder(const QString& folder)
{
    closeTrace();
    m_jobDock->show();
    m_jobDock->raise();
    setWindowTitle(tr("%1 — Kinetoscope").arg(QFileInfo(folder).fileName()));
    m_job->open(folder);
}

void MainWindow::openComparison(const QString& basePath, const QString& newPath)
{
    m_pendingBase.reset();
    m_openProblems.clear();
    startLoading({basePath, newPath}, OpenKind::Comparison);
}

void MainWindow::compareWith(const QString& newPath)
{
    if (!m_trace || m_file.isEmpty()) {
        openFile(newPath);
        return;
    }
    const std::shared_ptr<const Trace> base = m_timeline->traceCount() > 1 ? nullptr : m_trace;
    if (!base) {
        openComparison(m_file, newPath);
        return;
    }
    m_openProblems.clear();
    startLoading({newPath}, OpenKind::Comparison);
    m_pendingBase = base; // after startLoading: cancelling the previous load clears it
    m_pendingBasePath = m_file;
}

void MainWindow::startLoading(const QStringList& paths, OpenKind kind)
{
    m_loadKind = kind;
    m_statusLabel->setText(paths.size() == 1 ? tr("Loading %1…").arg(QFileInfo(paths.front()).fileName())
                                             : tr("Loading %n files…", nullptr, int(paths.size())));
    setLoadingUi(true);
    m_loader->start(paths);
}

void MainWindow::openDemo() { openFile(demoTracePath()); }

void MainWindow::cancelLoading() { m_loader->cancel(); }

void MainWindow::closeTrace()
{
    m_loader->cancel();
    setTrace(nullptr, QString());
}

void MainWindow::revealSlice(SliceId slice) { m_timeline->revealSlice(slice); }

void MainWindow::setLoadingUi(bool loading)
{
    m_progress->setVisible(loading);
    m_cancelButton->setVisible(loading);
    m_progress->setRange(0, 0);
}

void MainWindow::onProgress(quint64 bytesDone, quint64 bytesTotal, quint64 events, int filesDone, int files)
{
    if (bytesTotal > 0) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(int(std::min<quint64>(1000, bytesDone * 1000 / bytesTotal)));
    }
    m_progress->setFormat(files > 1 ? tr("%1 of %2 files, %L3 events").arg(filesDone).arg(files).arg(events)
                                    : tr("%L1 events").arg(events));
    m_progress->setTextVisible(true);
}

void MainWindow::onLoaded(const std::vector<LoadedFile>& loaded)
{
    setLoadingUi(false);
    std::vector<LoadedFile> files = loaded;
    if (m_loadKind == OpenKind::Comparison && m_pendingBase)
        files.insert(files.begin(), LoadedFile{m_pendingBasePath, m_pendingBase, {}});
    m_pendingBase.reset();
    QStringList failures = std::exchange(m_openProblems, {});
    std::vector<LoadedFile> ok;
    for (const LoadedFile& file : files) {
        if (file.trace)
            ok.push_back(file);
        else
            failures << tr("%1: %2").arg(QDir::toNativeSeparators(file.path), file.error);
    }
    // A merged collector file that names its ranks opens as those ranks (showWorkspace).
    const bool namedRanks = ok.size() == 1 && analysis::holdsSeveralRanks(*ok.front().trace);
    if (files.size() == 1 && m_loadKind == OpenKind::Files && !namedRanks) {
        if (!ok.empty()) {
            m_recentFiles->add(ok.front().path);
            setTrace(ok.front().trace, ok.front().path);
            m_timeline->setFocus(); // W/S/A/D work at once
        } else {
            onFailed(files.front().path, files.front().error);
        }
        return;
    }
    if (m_loadKind == OpenKind::Comparison && ok.size() != 2) {
        // Say which side failed; a comparison needs both.
        QStringList sides;
        for (std::size_t i = 0; i < files.size(); ++i) {
            if (!files[i].trace)
                sides << tr("%1 %2: %3")
                             .arg(i == 0 ? tr("BASE") : tr("NEW"), QDir::toNativeSeparators(files[i].path),
                                  files[i].error);
        }
        onFailed(files.size() > 1 ? files.back().path : files.front().path, sides.join(QLatin1Char('\n')));
        return;
    }
    showWorkspace(ok, m_loadKind, failures);
}

void MainWindow::showWorkspace(const std::vector<LoadedFile>& files, OpenKind kind, QStringList messages)
{
    const bool comparison = kind == OpenKind::Comparison;
    const bool oneFileOfRanks = files.size() == 1 && !comparison && analysis::holdsSeveralRanks(*files.front().trace);
    if (files.size() == 1 && !oneFileOfRanks) {
        m_recentFiles->add(files.front().path);
        setTrace(files.front().trace, files.front().path);
    } else if (!files.empty()) {
        if (oneFileOfRanks)
            m_recentFiles->add(files.front().path);
        m_job->clear();
        messages << m_workspace->open(
            files, comparison ? WorkspaceController::Kind::Comparison : WorkspaceController::Kind::Ranks);
        QStringList memberFiles; // each member's steps are remembered with its file
        for (const analysis::WorkspaceMember& member : m_workspace->workspace().members())
            memberFiles << QString::fromStdString(member.identity.file);
        m_stepChoices->prepare(memberFiles);
        const QString title = comparison
            ? tr("%1 vs %2").arg(QFileInfo(files[0].path).fileName(), QFileInfo(files[1].path).fileName())
            : oneFileOfRanks ? QFileInfo(files[0].path).fileName()
                             : tr("%n traces", nullptr, int(m_timeline->traceCount()));
        adoptTrace(m_timeline->trace(), files.front().path, title);
        if (oneFileOfRanks) // each rank is a trace of its processes; the file stays whole for Save As
            m_wholeFile = files.front().trace;
        m_statusLabel->setText(m_workspace->alignmentText());
        m_alignMenu->setEnabled(true);
        const auto& members = m_workspace->workspace().members();
        if (comparison && members.size() == 2)
            m_flamePanel->setComparison(members[0].trace, members[1].trace);
        QDockWidget* dock = comparison ? m_diffDock : m_ranksDock;
        dock->show();
        dock->raise();
        m_timeline->setFocus();
    }
    if (!messages.isEmpty()) {
        // Non-modal: what did open stays usable while the user reads this.
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Opened With Problems"),
                                    tr("Some of the files need attention:"), QMessageBox::Ok, this);
        box->setInformativeText(messages.join(QLatin1Char('\n')));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setModal(false);
        box->show();
    }
}

void MainWindow::onFailed(const QString& path, const QString& message)
{
    setLoadingUi(false);
    m_statusLabel->setText(tr("Could not open %1").arg(QFileInfo(path).fileName()));
    // Window-modal but not blocking: loading a file never stalls the event loop.
    auto* box = new QMessageBox(QMessageBox::Critical, tr("Cannot Open Trace"),
                                tr("Could not load %1:\n\n%2").arg(QDir::toNativeSeparators(path), message),
                                QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::showTrace(std::shared_ptr<const Trace> trace, const QString& title, bool newerSnapshot)
{
    setTrace(std::move(trace), QString(), newerSnapshot);
    setWindowTitle(tr("%1 — Kinetoscope").arg(title));
}

void MainWindow::setTrace(std::shared_ptr<const Trace> trace, const QString& path, bool newerSnapshot)
{
    m_workspace->clear();
    m_job->clear();
    m_flamePanel->setComparison(nullptr, nullptr);
    m_alignMenu->setEnabled(false);
    if (newerSnapshot) {
        m_timeline->setNewerSnapshot(trace);
    } else {
        m_stepChoices->prepare({path});
        std::vector<TimelineTrace> shown;
        if (trace) // with the steps chosen for its file
            shown.push_back({trace, 0, {}, StepChoices::rulesFor(path)});
        m_timeline->setTraces(std::move(shown));
    }
    adoptTrace(std::move(trace), path, QFileInfo(path).fileName());
    if (newerSnapshot) // the selection the timeline kept, which adoptTrace() cleared from Details
        m_details->showSlice(m_timeline->selectedSlice());
}

void MainWindow::adoptTrace(std::shared_ptr<const Trace> trace, const QString& path, const QString& title)
{
    m_wholeFile.reset();
    m_trace = std::move(trace);
    m_file = path;
    m_details->setTrace(m_trace);
    m_search->setTrace(m_trace);
    setWindowFilePath(path);
    setWindowTitle(path.isEmpty() ? tr("Kinetoscope") : tr("%1 — Kinetoscope").arg(title));
    if (m_trace) {
        m_diagnostics->setDiagnostics(m_trace->diagnostics());
        m_warningsButton->setText(m_diagnostics->summaryText());
        m_warningsButton->setVisible(!m_warningsButton->text().isEmpty());
        m_statusLabel->setText(tr("%L1 slices, %L2 flows").arg(m_trace->slices().size()).arg(m_trace->flows().size()));
    } else {
        m_diagnostics->clearDiagnostics();
        m_warningsButton->hide();
        m_statusLabel->clear();
    }
    rebuildFlowMenu();
    Q_EMIT traceChanged(m_trace);
}

void MainWindow::rebuildFlowMenu()
{
    m_flowMenu->clear();
    if (!m_trace)
        return;
    for (const FlowCategoryStats& stats : m_trace->flowStats()) {
        const StringId category = stats.category;
        const std::string_view name = m_trace->str(category);
        QAction* action = m_flowMenu->addAction(
            tr("%1 (%L2)").arg(QString::fromUtf8(name.data(), qsizetype(name.size()))).arg(stats.paired));
        action->setCheckable(true);
        action->setChecked(true);
        connect(action, &QAction::toggled, m_timeline,
                [this, category](bool on) { m_timeline->setFlowCategoryVisible(category, on); });
    }
}

void MainWindow::updateHistoryActions()
{
    m_backAction->setEnabled(m_timeline->canGoBack());
    m_forwardAction->setEnabled(m_timeline->canGoForward());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    m_loader->cancel();
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile())
        event->acceptProposedAction();
}

bool MainWindow::openDroppedData(const QMimeData* mime)
{
    QStringList paths;
    for (const QUrl& url : mime->urls()) {
        if (url.isLocalFile())
            paths << url.toLocalFile();
    }
    if (paths.isEmpty())
        return false;
    openFiles(paths);
    return true;
}

void MainWindow::dropEvent(QDropEvent* event)
{
    if (openDroppedData(event->mimeData()))
        event->acceptProposedAction();
}

} // namespace ks
