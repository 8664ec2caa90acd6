// MainWindow's docks: the panels around the timeline, how they follow the trace and each
// other, and their first-run arrangement (kept apart from mainwindow.cpp, the window's glue).
#include "app/mainwindow.h"

#include "app/exportmenu.h"
#include "app/memberdocks.h"
#include "app/notescontroller.h"
#include "app/stepchoices.h"
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
#include "widgets/statspanel.h"
#include "widgets/statsrangemodel.h"
#include "widgets/tableexport.h"
#include "widgets/timelinewidget.h"

#include <QAction>
#include <QDockWidget>
#include <QLayout>
#include <QScrollArea>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolButton>

#include <algorithm>
#include <utility>

namespace ks {

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

// Docks hidden until asked for (addOnDemandDock) wait among the bottom strip's tabs: added
// beside the strip, they opened in a sliver of its width, squeezed Details and Insights to
// nothing, and their minimum width beside the strip's widened the window past the screen. Also
// after a saved layout from before this; one the user placed (floating, in another area,
// shown) is left as it is.
void MainWindow::tabHiddenDocksIntoTheBottomStrip()
{
    QDockWidget* strip = nullptr;
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        if (!dock->isHidden() && !dock->isFloating() && dockWidgetArea(dock) == Qt::BottomDockWidgetArea) {
            strip = dock;
            break;
        }
    }
    for (QDockWidget* dock : m_onDemandDocks) {
        if (strip && dock->isHidden() && !dock->isFloating() && dockWidgetArea(dock) == Qt::BottomDockWidgetArea
            && tabifiedDockWidgets(dock).isEmpty())
            tabifyDockWidget(strip, dock);
    }
}

namespace {

// A dock of `window` holding `widget`, named for the saved layouts that find it by that name.
QDockWidget* addDock(QMainWindow& window, const QString& title, const char* objectName, Qt::DockWidgetArea area,
                     QWidget* widget)
{
    auto* dock = new QDockWidget(title, &window);
    dock->setObjectName(QLatin1String(objectName));
    dock->setWidget(widget);
    window.addDockWidget(area, dock);
    return dock;
}

} // namespace

// A bottom dock hidden until asked for (View menu): opening it brings its tab to the front.
QDockWidget* MainWindow::addOnDemandDock(const QString& title, const char* objectName, QWidget* widget)
{
    QDockWidget* dock = addDock(*this, title, objectName, Qt::BottomDockWidgetArea, widget);
    dock->hide();
    connect(dock->toggleViewAction(), &QAction::triggered, dock, [dock](bool shown) {
        if (shown)
            dock->raise();
    });
    m_onDemandDocks.push_back(dock);
    return dock;
}

MainWindow::~MainWindow() = default;

void MainWindow::createDocks()
{
    addDock(*this, tr("Details"), "detailsDock", Qt::RightDockWidgetArea, m_details);

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

    m_diagnosticsDock = addDock(*this, tr("Warnings"), "warningsDock", Qt::BottomDockWidgetArea, m_diagnostics);
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
    addOnDemandDock(tr("Flame Graph"), "flameGraphDock", m_flamePanel);
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
    addOnDemandDock(tr("Roofline"), "rooflineDock", new RooflinePanel(m_timeline));

    // Comparison and multi-rank docks (issues 12, 13): shown when such a workspace opens.
    m_diffDock = addDock(*this, tr("Diff"), "diffDock", Qt::BottomDockWidgetArea, m_diffPanel);
    m_ranksDock = addDock(*this, tr("Ranks"), "ranksDock", Qt::BottomDockWidgetArea, m_ranksPanel);
    // A job from its rank summaries (issue 40): shown when a summary folder opens.
    m_jobPanel = new JobViewPanel(this);
    m_jobDock = addDock(*this, tr("Job"), "jobDock", Qt::BottomDockWidgetArea, m_jobPanel);
    // SQL over the trace (issue 41): hidden until asked for (View menu).
    addOnDemandDock(tr("Query"), "queryDock", new QueryPanel(m_timeline));
    // Notes and views kept beside the trace (issue 41): hidden until asked for or a trace has notes.
    auto* notesDock = addDock(*this, tr("Notes"), "notesDock", Qt::RightDockWidgetArea, new NotesPanel(m_timeline));
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

} // namespace ks
