#include "app/mainwindow.h"

#include "app/aboutdialog.h"
#include "app/alignmenu.h"
#include "app/emptyhint.h"
#include "app/exportmenu.h"
#include "app/jobcontroller.h"
#include "app/memberdocks.h"
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
#include "widgets/insightspanel.h"
#include "widgets/jobviewpanel.h"
#include "widgets/kerneltablemodel.h"
#include "widgets/memberpicker.h"
#include "widgets/memorypanel.h"
#include "widgets/notespanel.h"
#include "widgets/opstablemodel.h"
#include "widgets/querypanel.h"
#include "widgets/rankspanel.h"
#include "widgets/rooflinepanel.h"
#include "widgets/searchbar.h"
#include "widgets/statspanel.h"
#include "widgets/statsrangemodel.h"
#include "widgets/tableexport.h"
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
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
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
    connect(this, &MainWindow::traceChanged, emptyHint, &EmptyTraceHint::setTrace);
    connect(m_job, &JobController::jobShown, emptyHint, [this, emptyHint] {
        if (!m_job->job()->ranks.empty()) // its rows are on the timeline
            emptyHint->hide();
    });
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
}

// First run: the timeline gets most of the window; the bottom panels share one tabbed
// strip instead of splitting the height between them.
void MainWindow::arrangeDefaultDocks()
{
    QList<QDockWidget*> bottom;
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        if (dockWidgetArea(dock) == Qt::BottomDockWidgetArea && !dock->isHidden())
            bottom << dock;
    }
    for (int i = 1; i < bottom.size(); ++i)
        tabifyDockWidget(bottom.front(), bottom[i]);
    // The GPU Summary answers the first question about a trace; the other tabs wait for theirs.
    if (auto* gpu = findChild<QDockWidget*>(QStringLiteral("gpuSummaryDock")); gpu && !gpu->isHidden())
        gpu->raise();
    else if (!bottom.isEmpty())
        bottom.front()->raise();
    // Sizes only stick once the window is laid out.
    QTimer::singleShot(0, this, [this, bottom] {
        // Room for a chart and a dozen table rows, yet the timeline keeps well over half.
        const int bottomHeight = std::clamp(fontMetrics().height() * 14, height() * 3 / 10, height() * 2 / 5);
        if (!bottom.isEmpty())
            resizeDocks({bottom.front()}, {bottomHeight}, Qt::Vertical);
        // The right docks (Details, Insights) need room for a finding's title next to its
        // time (titles wrap, in two lines at most for most): a quarter of a wide window, a
        // third of a 1280-pixel one.
        const int rightWidth = std::min(std::max(width() / 4, fontMetrics().averageCharWidth() * 64), width() / 3);
        if (auto* details = findChild<QDockWidget*>(QStringLiteral("detailsDock")))
            resizeDocks({details}, {rightWidth}, Qt::Horizontal);
    });
}

MainWindow::~MainWindow() = default;

void MainWindow::createDocks()
{
    auto* detailsDock = new QDockWidget(tr("Details"), this);
    detailsDock->setObjectName(QStringLiteral("detailsDock"));
    detailsDock->setWidget(m_details);
    addDockWidget(Qt::RightDockWidgetArea, detailsDock);

    // Insights (issue 11): under Details, visible without a click; it follows the timeline.
    auto* insights = new InsightsPanel(m_timeline);
    auto* insightsDock = new QDockWidget(tr("Insights"), this);
    insightsDock->setObjectName(QStringLiteral("insightsDock"));
    // Issue 35: this dock, the GPU summary and the tables show the member picked above them.
    connect(placeUnderMemberPicker(*insightsDock, insights, *m_timeline), &MemberPicker::memberChanged, insights,
            &InsightsPanel::setMember);
    addDockWidget(Qt::RightDockWidgetArea, insightsDock);
    statusBar()->addPermanentWidget(insights->countLabel());

    // Critical path (issue 36): with the bottom panels; View > Critical Path highlights it.
    m_criticalPath = new CriticalPathPanel(m_timeline);
    auto* criticalPathDock = new QDockWidget(tr("Critical Path"), this);
    criticalPathDock->setObjectName(QStringLiteral("criticalPathDock"));
    connect(placeUnderMemberPicker(*criticalPathDock, m_criticalPath, *m_timeline), &MemberPicker::memberChanged,
            m_criticalPath, &CriticalPathPanel::setMember);
    addDockWidget(Qt::BottomDockWidgetArea, criticalPathDock);

    m_diagnosticsDock = new QDockWidget(tr("Warnings"), this);
    m_diagnosticsDock->setObjectName(QStringLiteral("warningsDock"));
    m_diagnosticsDock->setWidget(m_diagnostics);
    addDockWidget(Qt::BottomDockWidgetArea, m_diagnosticsDock);
    m_diagnosticsDock->hide();
    connect(m_warningsButton, &QToolButton::clicked, m_diagnosticsDock,
            [this] { m_diagnosticsDock->setVisible(!m_diagnosticsDock->isVisible()); });

    // GPU metric overlays directly under the timeline, and the GPU summary (issue 5).
    auto* gpuViews = new GpuViews(m_timeline, this);
    m_stepChoices = new StepChoices(m_timeline, this); // "Use as Steps", remembered per file
    statusBar()->addPermanentWidget(m_stepChoices->label());
    connect(gpuViews, &GpuViews::reportReady, m_stepChoices, &StepChoices::showReport);
    centralWidget()->layout()->addWidget(gpuViews->overlay());
    auto* gpuDock = new QDockWidget(tr("GPU Summary"), this);
    gpuDock->setObjectName(QStringLiteral("gpuSummaryDock"));
    // Scrollable, so the bottom strip can stay short and leave the height to the timeline.
    auto* summaryScroll = new QScrollArea(gpuDock);
    summaryScroll->setWidget(gpuViews->summary());
    summaryScroll->setWidgetResizable(true);
    summaryScroll->setFrameShape(QFrame::NoFrame);
    connect(placeUnderMemberPicker(*gpuDock, summaryScroll, *m_timeline), &MemberPicker::memberChanged, gpuViews,
            &GpuViews::setSummaryMember);
    addDockWidget(Qt::BottomDockWidgetArea, gpuDock);
    // Without GPU activity the summary is one line: show the Operators tab in its place (of a
    // trace: with none open, as for a job's summaries, the tab in front stays).
    connect(gpuViews, &GpuViews::reportReady, this, [this, gpuViews] {
        if (m_trace && gpuViews->summary()->showsNoGpuMessage()
            && !tabifiedDockWidgets(findChild<QDockWidget*>(QStringLiteral("gpuSummaryDock"))).isEmpty())
            findChild<QDockWidget*>(QStringLiteral("operatorsDock"))->raise();
    });

    // Operators, Kernels and Range tables (issue 4): they follow the trace and, when asked, the
    // visible range; their occurrence buttons reveal slices in the timeline.
    const auto addStatsDock = [this](const QString& title, const QString& name, StatsPanel* panel) {
        auto* dock = new QDockWidget(title, this);
        dock->setObjectName(name);
        followPickedMember(*panel, *placeUnderMemberPicker(*dock, panel, *m_timeline), *m_timeline);
        addDockWidget(Qt::BottomDockWidgetArea, dock);
        connect(this, &MainWindow::traceChanged, panel, [this, panel](std::shared_ptr<const Trace> trace) {
            if (m_timeline->showsNewerSnapshot())
                panel->setNewerSnapshot(std::move(trace));
            else
                panel->setTrace(std::move(trace));
        });
    };
    addStatsDock(tr("Operators"), QStringLiteral("operatorsDock"), new StatsPanel(new OperatorTableModel));
    addStatsDock(tr("Kernels"), QStringLiteral("kernelsDock"), new StatsPanel(new KernelTableModel));
    // Per-name aggregates of everything in view (or the selected range), all tracks.
    auto* rangePanel = new StatsPanel(new RangeAggregateModel);
    rangePanel->setFollowVisibleRange(true);
    addStatsDock(tr("Range"), QStringLiteral("rangeDock"), rangePanel);

    // Call trees and flame graphs (issue 38): it follows the timeline's trace and selected range.
    // Hidden until asked for (View > Flame Graph): it computes only while shown, so opening a
    // trace costs nothing more.
    m_flamePanel = new FlameGraphPanel(m_timeline);
    auto* flameDock = new QDockWidget(tr("Flame Graph"), this);
    flameDock->setObjectName(QStringLiteral("flameGraphDock"));
    flameDock->setWidget(m_flamePanel);
    addDockWidget(Qt::BottomDockWidgetArea, flameDock);
    flameDock->hide();
    // Memory (issue 39): curves, what is alive at the peak or a chosen time, Operator memory.
    auto* memoryDock = new QDockWidget(tr("Memory"), this);
    memoryDock->setObjectName(QStringLiteral("memoryDock"));
    auto* memory = new MemoryPanel(m_timeline);
    MemberPicker* memoryPicker = placeUnderMemberPicker(*memoryDock, memory, *m_timeline);
    connect(memoryPicker, &MemberPicker::memberChanged, memory, &MemoryPanel::setMember);
    connect(memory, &MemoryPanel::memberRequested, memoryPicker, &MemberPicker::showMember);
    addDockWidget(Qt::BottomDockWidgetArea, memoryDock);

    // Roofline (issue 37): ops and shapes against the GPU's roofs; a point selects its kernels.
    // Hidden until asked for (View > Roofline): it reads every op's shapes, and computes only
    // while shown.
    auto* rooflineDock = new QDockWidget(tr("Roofline"), this);
    rooflineDock->setObjectName(QStringLiteral("rooflineDock"));
    rooflineDock->setWidget(new RooflinePanel(m_timeline));
    addDockWidget(Qt::BottomDockWidgetArea, rooflineDock);
    rooflineDock->hide();

    // Comparison and multi-rank docks (issues 12, 13): shown when such a workspace opens.
    m_diffDock = new QDockWidget(tr("Diff"), this);
    m_diffDock->setObjectName(QStringLiteral("diffDock"));
    m_diffDock->setWidget(m_diffPanel);
    addDockWidget(Qt::BottomDockWidgetArea, m_diffDock);
    m_ranksDock = new QDockWidget(tr("Ranks"), this);
    m_ranksDock->setObjectName(QStringLiteral("ranksDock"));
    m_ranksDock->setWidget(m_ranksPanel);
    addDockWidget(Qt::BottomDockWidgetArea, m_ranksDock);
    // A job from its rank summaries (issue 40): shown when a summary folder opens.
    m_jobPanel = new JobViewPanel(this);
    m_jobDock = new QDockWidget(tr("Job"), this);
    m_jobDock->setObjectName(QStringLiteral("jobDock"));
    m_jobDock->setWidget(m_jobPanel);
    addDockWidget(Qt::BottomDockWidgetArea, m_jobDock);
    // SQL over the trace (issue 41): hidden until asked for (View menu).
    auto* queryDock = new QDockWidget(tr("Query"), this);
    queryDock->setObjectName(QStringLiteral("queryDock"));
    queryDock->setWidget(new QueryPanel(m_timeline));
    addDockWidget(Qt::BottomDockWidgetArea, queryDock);
    queryDock->hide();
    // Notes and views kept beside the trace (issue 41): hidden until asked for or a trace has notes.
    auto* notesDock = new QDockWidget(tr("Notes"), this);
    notesDock->setObjectName(QStringLiteral("notesDock"));
    notesDock->setWidget(new NotesPanel(m_timeline));
    addDockWidget(Qt::RightDockWidgetArea, notesDock);
    notesDock->hide();
    m_notes = new NotesController(this, m_timeline, static_cast<NotesPanel*>(notesDock->widget()));
    connect(this, &MainWindow::traceChanged, m_notes,
            [this](const std::shared_ptr<const Trace>& trace) { m_notes->showTrace(trace, m_file); });

    // On a small screen (1280×720, 1920×1080 at 200 %) the panels' own minimum heights add
    // up to more than the window: each dock may shrink to a few lines (cutting its panel),
    // so that the timeline keeps half the height.
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        dock->widget()->setMinimumHeight(fontMetrics().height() * 3);
    // Every table exports to CSV from its context menu (issue 41).
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        for (QTableView* view : dock->findChildren<QTableView*>())
            addTableExportMenu(view, dock->windowTitle().toLower().replace(QLatin1Char(' '), QLatin1Char('-')));
    }
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
