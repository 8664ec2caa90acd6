#include "app/mainwindow.h"

#include "app/aboutdialog.h"
#include "app/recordingcontroller.h"
#include "app/traceloadjob.h"
#include "widgets/detailspanel.h"
#include "widgets/diagnosticspanel.h"
#include "widgets/gpuoverlaypanel.h"
#include "widgets/gpusummarypanel.h"
#include "widgets/gpuviews.h"
#include "widgets/insightspanel.h"
#include "widgets/kerneltablemodel.h"
#include "widgets/opstablemodel.h"
#include "widgets/searchbar.h"
#include "widgets/statspanel.h"
#include "widgets/statsrangemodel.h"
#include "widgets/timelinewidget.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QCoreApplication>
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
#include <QScrollArea>
#include <QSettings>
#include <QShortcut>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace ks {

namespace {

constexpr int kMaxRecentFiles = 10;
const char* const kRecentFilesKey = "recentFiles";

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_timeline(new TimelineWidget(this))
    , m_search(new SearchBar(this))
    , m_details(new DetailsPanel(this))
    , m_diagnostics(new DiagnosticsPanel(this))
    , m_loader(new TraceLoadJob(this))
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
    m_warningsButton->setAutoRaise(true);
    m_statusLabel = new QLabel(this);
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_warningsButton);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancelButton);
    m_warningsButton->hide();
    setLoadingUi(false);

    createDocks();
    createActions();
    new RecordingController(this); // File ▸ Record…, Stop Recording, Save As…

    connect(m_cancelButton, &QPushButton::clicked, this, &MainWindow::cancelLoading);
    connect(m_loader, &TraceLoadJob::progressChanged, this, &MainWindow::onProgress);
    connect(m_loader, &TraceLoadJob::loaded, this, &MainWindow::onLoaded);
    connect(m_loader, &TraceLoadJob::failed, this, &MainWindow::onFailed);
    connect(m_loader, &TraceLoadJob::cancelled, this, [this](const QString& path) {
        setLoadingUi(false);
        m_statusLabel->setText(tr("Loading %1 cancelled").arg(QFileInfo(path).fileName()));
    });

    connect(m_timeline, &TimelineWidget::selectionChanged, m_details, &DetailsPanel::showSlice);
    connect(m_timeline, &TimelineWidget::historyChanged, this, &MainWindow::updateHistoryActions);
    connect(m_details, &DetailsPanel::flowTargetActivated, m_timeline, &TimelineWidget::revealSlice);
    connect(m_search, &SearchBar::matchActivated, m_timeline, &TimelineWidget::revealSlice);
    connect(m_search, &SearchBar::highlightChanged, m_timeline,
            [this](const std::vector<bool>& names) { m_timeline->setHighlightedNames(names); });

    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray()))
        resize(1600, 1000);
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
    if (!bottom.isEmpty())
        bottom.front()->raise();
    // Sizes only stick once the window is laid out.
    QTimer::singleShot(0, this, [this, bottom] {
        if (!bottom.isEmpty())
            resizeDocks({bottom.front()}, {height() / 4}, Qt::Vertical);
        if (auto* details = findChild<QDockWidget*>(QStringLiteral("detailsDock")))
            resizeDocks({details}, {width() / 4}, Qt::Horizontal);
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
    insightsDock->setWidget(insights);
    addDockWidget(Qt::RightDockWidgetArea, insightsDock);
    statusBar()->addPermanentWidget(insights->countLabel());

    m_diagnosticsDock = new QDockWidget(tr("Warnings"), this);
    m_diagnosticsDock->setObjectName(QStringLiteral("warningsDock"));
    m_diagnosticsDock->setWidget(m_diagnostics);
    addDockWidget(Qt::BottomDockWidgetArea, m_diagnosticsDock);
    m_diagnosticsDock->hide();
    connect(m_warningsButton, &QToolButton::clicked, m_diagnosticsDock, [this] {
        m_diagnosticsDock->setVisible(!m_diagnosticsDock->isVisible());
    });

    // GPU metric overlays directly under the timeline, and the GPU summary (issue 5).
    auto* gpuViews = new GpuViews(m_timeline, this);
    centralWidget()->layout()->addWidget(gpuViews->overlay());
    auto* gpuDock = new QDockWidget(tr("GPU Summary"), this);
    gpuDock->setObjectName(QStringLiteral("gpuSummaryDock"));
    // Scrollable, so the bottom strip can stay short and leave the height to the timeline.
    auto* summaryScroll = new QScrollArea(gpuDock);
    summaryScroll->setWidget(gpuViews->summary());
    summaryScroll->setWidgetResizable(true);
    summaryScroll->setFrameShape(QFrame::NoFrame);
    gpuDock->setWidget(summaryScroll);
    addDockWidget(Qt::BottomDockWidgetArea, gpuDock);

    // Operators, Kernels and Range tables (issue 4): they follow the trace and, when asked, the
    // visible range; their occurrence buttons reveal slices in the timeline.
    const auto addStatsDock = [this](const QString& title, const QString& name, StatsPanel* panel) {
        auto* dock = new QDockWidget(title, this);
        dock->setObjectName(name);
        dock->setWidget(panel);
        addDockWidget(Qt::BottomDockWidgetArea, dock);
        connect(this, &MainWindow::traceChanged, panel, &StatsPanel::setTrace);
        connect(m_timeline, &TimelineWidget::visibleRangeChanged, panel, &StatsPanel::setVisibleRange);
        connect(panel, &StatsPanel::occurrenceRequested, m_timeline, &TimelineWidget::revealSlice);
    };
    addStatsDock(tr("Operators"), QStringLiteral("operatorsDock"), new StatsPanel(new OperatorTableModel));
    addStatsDock(tr("Kernels"), QStringLiteral("kernelsDock"), new StatsPanel(new KernelTableModel));
    // Per-name aggregates of everything in view (or the selected range), all tracks.
    auto* rangePanel = new StatsPanel(new RangeAggregateModel);
    rangePanel->setFollowVisibleRange(true);
    addStatsDock(tr("Range"), QStringLiteral("rangeDock"), rangePanel);
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open Trace"), QFileInfo(m_file).absolutePath(),
            tr("PyTorch profiler traces (*.json *.json.gz *.gz);;All files (*)"));
        if (!path.isEmpty())
            openFile(path);
    });
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    file->addAction(tr("Open &Demo Trace"), this, &MainWindow::openDemo);
    QAction* close = file->addAction(tr("&Close"), this, &MainWindow::closeTrace);
    close->setShortcut(QKeySequence::Close);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    QAction* find = m_viewMenu->addAction(tr("&Find…"), m_search, &SearchBar::activate);
    find->setShortcut(QKeySequence::Find);
    auto* slash = new QShortcut(QKeySequence(Qt::Key_Slash), m_timeline);
    slash->setContext(Qt::WidgetWithChildrenShortcut);
    connect(slash, &QShortcut::activated, m_search, &SearchBar::activate);
    QAction* fitAll = m_viewMenu->addAction(tr("Fit &All (0)"), m_timeline, &TimelineWidget::fitAll);
    QAction* fitSelection = m_viewMenu->addAction(tr("Zoom to &Selection (F)"), m_timeline,
                                                  &TimelineWidget::fitSelection);
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
    m_viewMenu->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        m_viewMenu->addAction(dock->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Kinetoscope"), this, [this] { showAboutDialog(this); });
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolBar"));
    toolbar->addAction(open);
    toolbar->addSeparator();
    toolbar->addAction(m_backAction);
    toolbar->addAction(m_forwardAction);
    toolbar->addAction(fitAll);
    toolbar->addAction(fitSelection);
    toolbar->addAction(allFlows);
    toolbar->addAction(find);
    updateHistoryActions();
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
    const QString installed = QCoreApplication::applicationDirPath()
        + QStringLiteral("/../share/kinetoscope/") + demo;
    if (QFileInfo::exists(installed))
        return installed;
    return QStringLiteral(KS_SOURCE_RESOURCES "/") + demo;
}

bool MainWindow::isLoading() const
{
    return m_loader->isRunning();
}

void MainWindow::openFile(const QString& path)
{
    m_statusLabel->setText(tr("Loading %1…").arg(QFileInfo(path).fileName()));
    setLoadingUi(true);
    m_loader->start(path);
}

void MainWindow::openDemo()
{
    openFile(demoTracePath());
}

void MainWindow::cancelLoading()
{
    m_loader->cancel();
}

void MainWindow::closeTrace()
{
    m_loader->cancel();
    setTrace(nullptr, QString());
}

void MainWindow::revealSlice(SliceId slice)
{
    m_timeline->revealSlice(slice);
}

void MainWindow::setLoadingUi(bool loading)
{
    m_progress->setVisible(loading);
    m_cancelButton->setVisible(loading);
    m_progress->setRange(0, 0);
}

void MainWindow::onProgress(quint64 bytesDone, quint64 bytesTotal, quint64 events)
{
    if (bytesTotal > 0) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(int(std::min<quint64>(1000, bytesDone * 1000 / bytesTotal)));
    }
    m_progress->setFormat(tr("%L1 events").arg(events));
    m_progress->setTextVisible(true);
}

void MainWindow::onLoaded(const QString& path, std::shared_ptr<const Trace> trace)
{
    setLoadingUi(false);
    addRecentFile(path);
    setTrace(std::move(trace), path);
    m_timeline->setFocus(); // W/S/A/D work at once
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

void MainWindow::showTrace(std::shared_ptr<const Trace> trace, const QString& title)
{
    setTrace(std::move(trace), QString());
    setWindowTitle(tr("%1 — Kinetoscope").arg(title));
}

void MainWindow::setTrace(std::shared_ptr<const Trace> trace, const QString& path)
{
    m_trace = std::move(trace);
    m_file = path;
    m_timeline->setTrace(m_trace);
    m_details->setTrace(m_trace);
    m_search->setTrace(m_trace);
    setWindowFilePath(path);
    setWindowTitle(path.isEmpty() ? tr("Kinetoscope")
                                  : tr("%1 — Kinetoscope").arg(QFileInfo(path).fileName()));
    if (m_trace) {
        m_diagnostics->setDiagnostics(m_trace->diagnostics());
        std::uint64_t warnings = 0;
        for (const auto& entry : m_trace->diagnostics().counts())
            warnings += entry.second;
        m_warningsButton->setText(tr("⚠ %Ln warning(s)", nullptr, qlonglong(warnings)));
        m_warningsButton->setVisible(warnings > 0);
        m_statusLabel->setText(tr("%L1 slices, %L2 flows")
                                   .arg(m_trace->slices().size())
                                   .arg(m_trace->flows().size()));
    } else {
        m_diagnostics->clear();
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

void MainWindow::addRecentFile(const QString& path)
{
    QSettings settings;
    QStringList files = settings.value(QLatin1String(kRecentFilesKey)).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    settings.setValue(QLatin1String(kRecentFilesKey), files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = QSettings().value(QLatin1String(kRecentFilesKey)).toStringList();
    for (const QString& path : files)
        m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); })
            ->setToolTip(path);
    m_recentMenu->setEnabled(!files.isEmpty());
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
    const QList<QUrl> urls = mime->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return false;
    openFile(urls.first().toLocalFile());
    return true;
}

void MainWindow::dropEvent(QDropEvent* event)
{
    if (openDroppedData(event->mimeData()))
        event->acceptProposedAction();
}

} // namespace ks
