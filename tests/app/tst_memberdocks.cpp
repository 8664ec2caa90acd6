// Every workspace member is first-class (issue 35): with two ranks (or BASE and NEW) open,
// each member has its own GPU metric tracks, and the GPU Summary, Operators, Kernels and
// Insights docks follow the member of the selection (unless pinned), showing exactly what
// they show when that file is opened alone; so does Memory. Insights can list every member's
// findings.
#include "app/mainwindow.h"
#include "app/workspacecontroller.h"
#include "clirun.h"
#include "core/analysis/criticalpath.h"
#include "core/analysis/insights.h"
#include "core/analysis/memoryreport.h"
#include "core/analysis/rankscriticalpath.h"
#include "core/analysis/workspace.h"
#include "core/facts/tracefacts.h"
#include "core/gpu/gpumetrics.h"
#include "core/loading/loader.h"
#include "fixturejson.h"
#include "widgets/criticalpathpanel.h"
#include "widgets/gpumetrictrack.h"
#include "widgets/gpuoverlaypanel.h"
#include "widgets/gpustepbreakdownmodel.h"
#include "widgets/gpusummarymodel.h"
#include "widgets/gpusummarypanel.h"
#include "widgets/gpuviews.h"
#include "widgets/insightsmodel.h"
#include "widgets/insightspanel.h"
#include "widgets/liveallocationsmodel.h"
#include "widgets/memberpicker.h"
#include "widgets/memorypanel.h"
#include "widgets/nvprofmodel.h"
#include "widgets/statspanel.h"
#include "widgets/timelinerenderer.h"
#include "widgets/timelinewidget.h"
#include "windowtesting.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QToolButton>

#include <cmath>

using namespace ks;

namespace {

QString fixture(const char* name)
{
    return QStringLiteral(KS_TEST_DATA "/%1.pt.trace.json.gz").arg(QLatin1String(name));
}

std::shared_ptr<const Trace> load(const char* name) { return loadTraceFile(fixture(name).toStdString()).trace; }

// Every row of the first `columns` columns (all when -1), one line each, sorted: the docks'
// numbers as shown, whatever the sort order of the view.
QStringList rowsOf(const QAbstractItemModel& model, int columns = -1)
{
    QStringList rows;
    const int count = columns < 0 ? model.columnCount() : columns;
    for (int r = 0; r < model.rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < count; ++c)
            cells << model.index(r, c).data().toString();
        rows << cells.join(QLatin1Char('|'));
    }
    rows.sort();
    return rows;
}

StatsPanel* statsPanel(const MainWindow& window, const char* dock)
{
    return window.findChild<QDockWidget*>(QLatin1String(dock))->findChild<StatsPanel*>();
}

MemberPicker* pickerOf(const MainWindow& window, const char* dock)
{
    return window.findChild<QDockWidget*>(QLatin1String(dock))->findChild<MemberPicker*>();
}

// What the docks show of one member, whole trace.
struct Readout {
    QStringList breakdown, gpuActivities, kernels, operators, insights;
};

Readout readDocks(const MainWindow& window)
{
    Readout r;
    const GpuSummaryPanel* summary = window.findChild<GpuViews*>()->summary();
    r.breakdown = rowsOf(*summary->breakdownModel());
    r.gpuActivities = rowsOf(*summary->gpuActivitiesModel());
    r.kernels = rowsOf(*statsPanel(window, "kernelsDock")->model());
    r.operators = rowsOf(*statsPanel(window, "operatorsDock")->model());
    r.insights = rowsOf(*window.findChild<InsightsPanel*>()->model(), InsightsModel::MemberColumn);
    return r;
}

// Spies on every dock's "new numbers" signal, to wait until they all caught up.
struct DockSpies {
    explicit DockSpies(const MainWindow& window)
        : gpu(window.findChild<GpuViews*>(), &GpuViews::reportReady)
        , kernels(statsPanel(window, "kernelsDock"), &StatsPanel::rowsUpdated)
        , operators(statsPanel(window, "operatorsDock"), &StatsPanel::rowsUpdated)
        , insights(window.findChild<InsightsPanel*>(), &InsightsPanel::insightsReady)
    {
    }
    bool allFired() const
    {
        return gpu.count() > 0 && kernels.count() > 0 && operators.count() > 0 && insights.count() > 0;
    }
    QSignalSpy gpu, kernels, operators, insights;
};

// The docks of `name` opened alone.
Readout readAlone(const char* name)
{
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    DockSpies spies(window);
    window.openFile(fixture(name));
    if (!QTest::qWaitFor([&] { return spies.allFired(); }, 60000))
        return {};
    return readDocks(window);
}

// The first kernel of a trace (by start): something to click on a member's GPU row.
SliceId firstKernel(const Trace& trace)
{
    SliceId best = kNoSlice;
    for (SliceId s = 0; s < trace.slices().size(); ++s) {
        const Process& process = trace.processes()[trace.tracks()[trace.trackOf(s)].process];
        if (process.isDevice && (best == kNoSlice || trace.slices().start[s] < trace.slices().start[best]))
            best = s;
    }
    return best;
}

// The GPU's peak "Total Allocated" of a fixture's [memory] events, read from its JSON.
std::int64_t gpuPeakAllocated(const char* name)
{
    std::int64_t peak = -1;
    const nlohmann::json doc = kstest::readGz(fixture(name).toStdString());
    for (const auto& e : doc.at("traceEvents")) {
        if (e.value("name", "") == "[memory]" && e.at("args").value("Device Type", -1) == 1)
            peak = std::max(peak, e.at("args").at("Total Allocated").get<std::int64_t>());
    }
    return peak;
}

} // namespace

class TestMemberDocks : public QObject {
    Q_OBJECT

    // Member `member`'s GPU groups show the three metric tracks, plotting what that file's own
    // GPU analysis says (utilization, SM efficiency, occupancy over its whole trace).
    static void checkGpuTracks(const TimelineWidget& timeline, std::uint32_t member, const Trace& alone)
    {
        const Trace& shown = *timeline.traceAt(member);
        const gpu::GpuAnalysis expected = gpu::analyzeGpus(alone);
        QVERIFY(!expected.gpus.empty());
        int checked = 0;
        for (std::uint32_t p = 0; p < shown.processes().size(); ++p) {
            const Process& process = shown.processes()[p];
            const gpu::GpuMetricIndex* want = expected.gpu(process.deviceIndex);
            if (!process.isDevice || !want)
                continue;
            QTRY_VERIFY_WITH_TIMEOUT(timeline.renderer(member).gpuMetricIndex(p) != nullptr, 60000);
            QCOMPARE(int(timeline.trackLayout(member).options().metricTracks.at(p)), kGpuMetricCount);
            const gpu::RangeMetrics got =
                timeline.renderer(member).gpuMetricIndex(p)->metrics(alone.startTime(), alone.endTime());
            const gpu::RangeMetrics ref = want->metrics(alone.startTime(), alone.endTime());
            QVERIFY(ref.utilization > 0.0);
            QCOMPARE(got.utilization, ref.utilization);
            QCOMPARE(got.smEfficiency.has_value(), ref.smEfficiency.has_value());
            if (ref.smEfficiency)
                QCOMPARE(*got.smEfficiency, *ref.smEfficiency);
            QCOMPARE(got.achievedOccupancy.has_value(), ref.achievedOccupancy.has_value());
            if (ref.achievedOccupancy)
                QCOMPARE(*got.achievedOccupancy, *ref.achievedOccupancy);
            ++checked;
        }
        QCOMPARE(checked, int(expected.gpus.size()));
    }

    // The dock's paths equal the core's (lengths, breakdowns, segments).
    static void checkCriticalPaths(const std::vector<analysis::StepCriticalPath>& shown,
                                   const std::vector<analysis::StepCriticalPath>& expected)
    {
        QCOMPARE(shown.size(), expected.size());
        for (std::size_t i = 0; i < shown.size(); ++i) {
            QCOMPARE(shown[i].step, expected[i].step);
            QCOMPARE(shown[i].path.length, expected[i].path.length);
            QVERIFY(shown[i].path.breakdown == expected[i].path.breakdown);
            QCOMPARE(shown[i].path.segments.size(), expected[i].path.segments.size());
        }
    }

    // `kinetoscope-cli critical-path --json --rank N` over both DDP ranks.
    static nlohmann::json criticalPathCli(int rank)
    {
        return kstest::runCliJson({"critical-path", "--json", "--rank", std::to_string(rank),
                                   fixture("ddp_rank0").toStdString(), fixture("ddp_rank1").toStdString()});
    }

    // The dock's step lengths and breakdowns are the CLI's (µs in its JSON).
    static void checkAgainstCli(const std::vector<analysis::StepCriticalPath>& shown, const nlohmann::json& cli)
    {
        QVERIFY(cli.is_object());
        QCOMPARE(shown.size(), cli.at("steps").size());
        for (std::size_t i = 0; i < shown.size(); ++i) {
            const auto& expected = cli.at("steps").at(i);
            QCOMPARE(shown[i].step, expected.at("step").get<long long>());
            QVERIFY(std::fabs(double(shown[i].path.length) / 1000.0 - expected.at("length_us").get<double>()) < 1e-6);
            for (int k = 0; k < analysis::kPathKindCount; ++k) {
                const std::string key(analysis::pathKindName(analysis::PathKind(k)));
                const double us = double(shown[i].path.breakdown[std::size_t(k)]) / 1000.0;
                QVERIFY2(std::fabs(us - expected.at("breakdown").at(key).get<double>()) < 1e-6, key.c_str());
            }
            QCOMPARE(shown[i].path.segments.size(), expected.at("segments").size());
        }
    }

    // The Critical Path toggle on rank 1's step 2, which waits in its all-reduce for rank 0:
    // the path is lit on both ranks (every segment's slice on its own rank), rank 0's NCCL
    // kernel that started when the wait ended among them, joined to rank 1's by a lit link.
    static void checkCrossRankHighlight(const MainWindow& window, const CriticalPathPanel& panel)
    {
        const TimelineWidget& timeline = *window.timeline();
        window.findChild<QAction*>(QStringLiteral("criticalPathAction"))->trigger();
        QVERIFY(panel.isPathHighlighted());
        QCOMPARE(panel.currentStep(), 0);
        const auto& segments = panel.steps()[0].path.segments;
        const auto wait = std::find_if(segments.begin(), segments.end(), [](const analysis::PathSegment& seg) {
            return seg.kind == analysis::PathKind::CollectiveWait;
        });
        QVERIFY(wait != segments.end());
        QCOMPARE(wait->item.member, 1u);
        // Rank 0's NCCL kernel that began when rank 1's wait ended, read from rank 0's trace.
        const analysis::RanksCriticalPath ranks(window.workspace()->workspace());
        const Trace& rank0 = *timeline.traceAt(0);
        SliceId lastArrival = kNoSlice;
        for (SliceId s = 0; s < rank0.slices().size(); ++s)
            if (rank0.classOf(s) == SliceClass::Kernel && rank0.str(rank0.slices().name[s]).starts_with("nccl")
                && ranks.toAxis(0, rank0.slices().start[s]) == wait->start + wait->duration)
                lastArrival = s;
        QVERIFY(lastArrival != kNoSlice);
        const auto lit = [&](std::uint32_t trace, SliceId slice) {
            const auto& slices = timeline.highlightedSlices(trace);
            return std::binary_search(slices.begin(), slices.end(), slice);
        };
        QVERIFY(lit(0, lastArrival));
        QVERIFY(lit(1, wait->item.slice));
        int onRank0 = 0;
        for (const auto& seg : segments) {
            if (seg.item.slice == kNoSlice
                || timeline.traceAt(seg.item.member)->classOf(seg.item.slice) == SliceClass::UserAnnotation)
                continue;
            QVERIFY2(lit(seg.item.member, seg.item.slice), seg.name.c_str());
            onRank0 += seg.item.member == 0 ? 1 : 0;
        }
        QVERIFY(onRank0 > 0); // the path before the wait runs through rank 0
        const CrossTraceLink link{{0, lastArrival}, {1, wait->item.slice}};
        const auto& links = timeline.highlightedCrossLinks();
        QVERIFY(std::find(links.begin(), links.end(), link) != links.end());
        // Off: nothing lit on either rank.
        window.findChild<QAction*>(QStringLiteral("criticalPathAction"))->trigger();
        QVERIFY(timeline.highlightedSlices(0).empty() && timeline.highlightedSlices(1).empty());
        QVERIFY(timeline.highlightedCrossLinks().empty());
    }

private Q_SLOTS:
    void initTestCase() { kstest::useTestSettings(); }

    void everyRankHasItsGpuTracks()
    {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openFiles({fixture("ddp_rank0"), fixture("ddp_rank1")});
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 60000);
        QCOMPARE(window.timeline()->traceCount(), 2u);
        checkGpuTracks(*window.timeline(), 0, *load("ddp_rank0"));
        checkGpuTracks(*window.timeline(), 1, *load("ddp_rank1"));
    }

    void newHasItsGpuTracksInAComparison()
    {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openComparison(fixture("train_baseline"), fixture("train_optimized"));
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 60000);
        checkGpuTracks(*window.timeline(), 0, *load("train_baseline"));
        checkGpuTracks(*window.timeline(), 1, *load("train_optimized"));
    }

    // Selecting a rank-1 kernel switches GPU Summary, Kernels, Operators and Insights to rank 1:
    // their numbers equal those of rank 1 opened alone. A pinned dock stays on its member.
    void docksFollowTheSelectedRank()
    {
        const Readout alone0 = readAlone("ddp_rank0");
        const Readout alone1 = readAlone("ddp_rank1");
        QVERIFY(!alone1.kernels.isEmpty() && !alone1.operators.isEmpty() && !alone1.breakdown.isEmpty());
        // The ranks' numbers differ, so the comparisons below tell them apart.
        QVERIFY(alone0.kernels != alone1.kernels);
        QVERIFY(alone0.gpuActivities != alone1.gpuActivities);

        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        auto spies = std::make_unique<DockSpies>(window);
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openFiles({fixture("ddp_rank0"), fixture("ddp_rank1")});
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1 && spies->allFired(), 60000);
        // The Critical Path dock on rank 0 first: rank 0's paths of the ranks solved together.
        auto* rank0Dock = window.findChild<CriticalPathPanel*>();
        const auto rank0Paths =
            analysis::RanksCriticalPath(window.workspace()->workspace()).analysis().analyzeSteps({}, 0);
        QTRY_VERIFY_WITH_TIMEOUT(rank0Dock->steps().size() == rank0Paths.size()
                                     && rank0Dock->steps().back().path.breakdown == rank0Paths.back().path.breakdown,
                                 60000);
        checkCriticalPaths(rank0Dock->steps(), rank0Paths);
        checkAgainstCli(rank0Dock->steps(), criticalPathCli(0));
        if (QTest::currentTestFailed())
            return;
        MemberPicker* kernelsPicker = pickerOf(window, "kernelsDock");
        QVERIFY(kernelsPicker->isVisible());
        QCOMPARE(kernelsPicker->comboBox()->count(), 2);
        QCOMPARE(kernelsPicker->member(), 0u);
        const Readout first = readDocks(window);
        QCOMPARE(first.kernels, alone0.kernels);
        QCOMPARE(first.operators, alone0.operators);
        QCOMPARE(first.breakdown, alone0.breakdown);
        QCOMPARE(first.gpuActivities, alone0.gpuActivities);
        QCOMPARE(first.insights, alone0.insights);

        // The Operators dock is pinned to rank 0 by the user's pick.
        MemberPicker* opsPicker = pickerOf(window, "operatorsDock");
        opsPicker->pin(0);
        QVERIFY(opsPicker->isPinned());

        spies = std::make_unique<DockSpies>(window);
        QSignalSpy operatorsRows(statsPanel(window, "operatorsDock"), &StatsPanel::rowsUpdated);
        const SliceId kernel = firstKernel(*window.timeline()->traceAt(1));
        window.timeline()->revealTraceSlice({1, kernel});
        QCOMPARE(kernelsPicker->member(), 1u);
        QCOMPARE(kernelsPicker->comboBox()->currentIndex(), 1);
        QCOMPARE(pickerOf(window, "gpuSummaryDock")->member(), 1u);
        QCOMPARE(pickerOf(window, "insightsDock")->member(), 1u);
        QCOMPARE(pickerOf(window, "rangeDock")->member(), 1u);
        QCOMPARE(opsPicker->member(), 0u);
        QTRY_VERIFY_WITH_TIMEOUT(spies->gpu.count() > 0 && spies->kernels.count() > 0 && spies->insights.count() > 0,
                                 60000);
        const Readout second = readDocks(window);
        QCOMPARE(second.kernels, alone1.kernels);
        QCOMPARE(second.breakdown, alone1.breakdown);
        QCOMPARE(second.gpuActivities, alone1.gpuActivities);
        QCOMPARE(second.insights, alone1.insights);
        QCOMPARE(second.operators, alone0.operators); // pinned
        QCOMPARE(operatorsRows.count(), 0);
        // The Critical Path dock shows rank 1's paths, as the core computes them for rank 1 of
        // the two ranks (rank 1's step 2 waits in an all-reduce for rank 0), and as the CLI does.
        auto* criticalPath = window.findChild<CriticalPathPanel*>();
        QCOMPARE(pickerOf(window, "criticalPathDock")->member(), 1u);
        QCOMPARE(criticalPath->member(), 1u);
        const auto rank1Paths =
            analysis::RanksCriticalPath(window.workspace()->workspace()).analysis().analyzeSteps({}, 1);
        QVERIFY(rank1Paths[0].path.breakdown[std::size_t(analysis::PathKind::CollectiveWait)] > 0);
        QTRY_VERIFY_WITH_TIMEOUT(criticalPath->steps().size() == rank1Paths.size()
                                     && criticalPath->steps()[0].path.breakdown == rank1Paths[0].path.breakdown,
                                 60000);
        checkCriticalPaths(criticalPath->steps(), rank1Paths);
        checkAgainstCli(criticalPath->steps(), criticalPathCli(1));
        if (QTest::currentTestFailed())
            return;
        checkCrossRankHighlight(window, *criticalPath);
        if (QTest::currentTestFailed())
            return;
        // Unpinned, it follows the selection again: rank 1.
        opsPicker->pinButton()->click();
        QVERIFY(!opsPicker->isPinned());
        QTRY_VERIFY_WITH_TIMEOUT(operatorsRows.count() > 0, 60000);
        QCOMPARE(rowsOf(*statsPanel(window, "operatorsDock")->model()), alone1.operators);

        // Back on rank 0 the cached findings come back at once.
        QSignalSpy insightsReady(window.findChild<InsightsPanel*>(), &InsightsPanel::insightsReady);
        window.timeline()->revealTraceSlice({0, firstKernel(*window.timeline()->traceAt(0))});
        QCOMPARE(insightsReady.count(), 1);
        QCOMPARE(rowsOf(*window.findChild<InsightsPanel*>()->model(), InsightsModel::MemberColumn), alone0.insights);
    }

    // Memory follows the selection's member too: the GPU peak of train_optimized once one of
    // its kernels is selected, that of train_baseline before (both from their [memory] events).
    void memoryDockFollowsTheSelectedMember()
    {
        const std::int64_t basePeak = gpuPeakAllocated("train_baseline");
        const std::int64_t optimizedPeak = gpuPeakAllocated("train_optimized");
        QVERIFY(basePeak > 0 && optimizedPeak > 0 && basePeak != optimizedPeak);

        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        auto* memory = window.findChild<MemoryPanel*>();
        QVERIFY(memory);
        QSignalSpy reports(memory, &MemoryPanel::reportReady);
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openFiles({fixture("train_baseline"), fixture("train_optimized")});
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1 && memory->currentDevice(), 60000);
        MemberPicker* picker = pickerOf(window, "memoryDock");
        QVERIFY(picker && !picker->isHidden()); // shown with several traces (its tab may be behind another)
        QCOMPARE(picker->comboBox()->count(), 2);
        QCOMPARE(memory->member(), 0u);
        QCOMPARE(memory->currentDevice()->peakAllocated, basePeak);

        reports.clear();
        window.timeline()->revealTraceSlice({1, firstKernel(*window.timeline()->traceAt(1))});
        QCOMPARE(picker->member(), 1u);
        QCOMPARE(memory->member(), 1u);
        QTRY_VERIFY_WITH_TIMEOUT(reports.count() > 0, 60000);
        QVERIFY(memory->currentDevice());
        QCOMPARE(memory->currentDevice()->peakAllocated, optimizedPeak);
        // Its rows select their ops in the member's own group.
        QVERIFY(memory->liveModel()->rowCount() > 0);
        memory->liveView()->selectRow(0);
        QCOMPARE(window.timeline()->selection().trace, 1u);
    }

    // "All traces" lists both ranks' findings with their trace, and the straggler among them,
    // as core's multi-trace insights find them.
    void insightsListEveryMembersFindings()
    {
        const std::vector<std::shared_ptr<const facts::TraceFacts>> facts{
            facts::sharedTraceFacts(load("straggler_rank0")), facts::sharedTraceFacts(load("straggler_rank1"))};
        const std::vector<analysis::Insight> expected =
            analysis::findInsights(std::span<const std::shared_ptr<const facts::TraceFacts>>(facts));
        const auto straggler = std::find_if(expected.begin(), expected.end(),
                                            [](const analysis::Insight& i) { return i.id == "straggler"; });
        QVERIFY(straggler != expected.end());

        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openFiles({fixture("straggler_rank0"), fixture("straggler_rank1")});
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 60000);
        auto* panel = window.findChild<InsightsPanel*>();
        QVERIFY(panel->allMembersCheckBox()->isVisible());
        QSignalSpy insightsReady(panel, &InsightsPanel::insightsReady);
        panel->allMembersCheckBox()->click();
        QTRY_VERIFY_WITH_TIMEOUT(insightsReady.count() > 0 && panel->model()->rowCount() == int(expected.size()),
                                 60000);
        QVERIFY(!panel->view()->isColumnHidden(InsightsModel::MemberColumn));
        const QStringList titles = window.workspace()->titles();
        int stragglerRow = -1;
        for (int row = 0; row < panel->model()->rowCount(); ++row) {
            const analysis::Insight* insight = panel->model()->insightAt(row);
            const auto same = std::find_if(expected.begin(), expected.end(), [&](const analysis::Insight& e) {
                return e.id == insight->id && e.traceIndex == insight->traceIndex && e.title == insight->title;
            });
            QVERIFY2(same != expected.end(), insight->title.c_str());
            QCOMPARE(panel->model()->index(row, InsightsModel::MemberColumn).data().toString(),
                     titles.at(insight->traceIndex));
            if (insight->id == "straggler")
                stragglerRow = row;
        }
        QVERIFY(stragglerRow >= 0);
        QCOMPARE(panel->model()->insightAt(stragglerRow)->traceIndex, straggler->traceIndex);
        // Its evidence is highlighted in the straggler's own group.
        panel->selectInsight(stragglerRow);
        if (!straggler->evidence.empty() && straggler->evidence.front().slice != kNoSlice)
            QVERIFY(!window.timeline()->highlightedSlices(std::uint32_t(straggler->traceIndex)).empty());
    }

    // Issue 35: the ranks of ONE merged collected file are first-class too. Each is a trace of
    // its own processes (as `gpu --rank N` splits it): picking "Rank 1" on the GPU Summary
    // shows rank 1's GPU alone, with rank 1's steps, equal to `kinetoscope-cli gpu --rank 1
    // --json`; Insights shows what the core finds on that rank alone.
    void mergedFileRanksAreFirstClass()
    {
        const QString path = fixture("collected_nccl_merged");
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openFiles({path});
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 60000);
        const QStringList titles = window.workspace()->titles();
        MemberPicker* gpuPicker = pickerOf(window, "gpuSummaryDock");
        QVERIFY(gpuPicker->comboBox()->count() >= 2);
        QCOMPARE(gpuPicker->comboBox()->count(), int(window.timeline()->traceCount()));
        auto* views = window.findChild<GpuViews*>();
        const GpuSummaryModel* summary = views->summary()->summaryModel();
        std::vector<double> utilization;
        for (int rank = 0; rank < 2; ++rank) {
            const auto member = std::uint32_t(rank); // ranks first, in order
            QVERIFY2(gpuPicker->comboBox()->itemText(rank).startsWith(QStringLiteral("Rank %1").arg(rank)),
                     qPrintable(gpuPicker->comboBox()->itemText(rank)));
            QCOMPARE(gpuPicker->comboBox()->itemText(rank), titles.at(rank));
            gpuPicker->pin(member);
            QCOMPARE(views->summaryMember(), member);
            QTRY_VERIFY_WITH_TIMEOUT(views->reportOf(member) && summary->rowCount() > 0, 60000);
            const nlohmann::json cli =
                kstest::runCliJson({"gpu", "--rank", std::to_string(rank), "--json", path.toStdString()});
            QVERIFY(cli.is_object());
            QCOMPARE(cli.at("rank").get<int>(), rank);
            const auto& gpus = cli.at("gpus");
            QCOMPARE(summary->rowCount(), int(gpus.size())); // this rank's GPU only
            for (int row = 0; row < summary->rowCount(); ++row) {
                const auto& g = gpus.at(std::size_t(row));
                QCOMPARE(summary->index(row, GpuSummaryModel::Gpu).data().toInt(), g.at("device").get<int>());
                const double shown = summary->index(row, GpuSummaryModel::Utilization).data(Qt::UserRole).toDouble();
                QVERIFY(shown > 0.0);
                QCOMPARE(shown, g.at("utilization_pct").get<double>());
                const QVariant sm = summary->index(row, GpuSummaryModel::SmEfficiency).data(Qt::UserRole);
                if (!g.at("sm_efficiency_pct").is_null())
                    QCOMPARE(sm.toDouble(), g.at("sm_efficiency_pct").get<double>());
                utilization.push_back(shown);
            }
            // The rank's own steps: its Optimizer.step iterations, as the CLI counts them.
            const auto report = views->reportOf(member);
            QCOMPARE(int(report->facts->windows.steps.size()), cli.at("window").at("steps").get<int>());
            QCOMPARE(report->facts->windows.sourceName, cli.at("window").at("steps_source").get<std::string>());
            QCOMPARE(views->summary()->breakdownModel()->rowCount() - 1, cli.at("window").at("steps").get<int>());
        }
        QCOMPARE(utilization.size(), std::size_t(2));
        QVERIFY(utilization[0] != utilization[1]); // two ranks, two GPUs, two sets of numbers
        QVERIFY(window.timeline()->traceAt(0) != window.timeline()->traceAt(1));

        // Insights of rank 1: what the core finds on rank 1's trace alone.
        auto* insights = window.findChild<InsightsPanel*>();
        QSignalSpy insightsReady(insights, &InsightsPanel::insightsReady);
        pickerOf(window, "insightsDock")->pin(1);
        const auto expected = analysis::findInsights(
            *facts::sharedTraceFacts(window.timeline()->traceAt(1), window.timeline()->stepRules(1)));
        QTRY_VERIFY_WITH_TIMEOUT(insightsReady.count() > 0, 60000);
        QCOMPARE(insights->model()->rowCount(), int(expected.size()));
        for (int row = 0; row < insights->model()->rowCount(); ++row)
            QCOMPARE(insights->model()->insightAt(row)->title, expected.at(std::size_t(row)).title);
    }

    // Issue 35: a click on another member's memory track reaches the Memory dock as one on the
    // primary's does: it switches to that member and lists what is alive at the clicked time
    // of that member's clock, as core's memory report of train_optimized has it.
    void memoryTrackOfAnotherMemberReachesTheMemoryDock()
    {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        auto* memory = window.findChild<MemoryPanel*>();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openFiles({fixture("train_baseline"), fixture("train_optimized")});
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1 && memory->currentDevice(), 60000);
        QCOMPARE(memory->member(), 0u);
        TimelineWidget* timeline = window.timeline();
        const Trace& trace1 = *timeline->traceAt(1);
        // Member 1's GPU memory curve belongs to its host process, which starts collapsed with
        // several traces (their GPU streams first): the user expands it, as here.
        std::uint32_t counter = kNoIndex;
        for (std::uint32_t c = 0; c < trace1.counters().size(); ++c) {
            const CounterSeries& series = trace1.counters()[c];
            if (series.derived && series.name.starts_with("GPU") && counter == kNoIndex)
                counter = c;
        }
        QVERIFY(counter != kNoIndex);
        const std::uint32_t host = trace1.counters()[counter].process;
        QVERIFY(timeline->isProcessCollapsed(1, host));
        timeline->setProcessCollapsed(1, host, false);
        const TrackLayout& layout = timeline->trackLayout(1);
        const auto curve = std::find_if(layout.items().begin(), layout.items().end(), [&](const LayoutItem& item) {
            return item.kind == LayoutItem::Kind::Counter && item.index == counter;
        });
        QVERIFY(curve != layout.items().end());
        std::uint32_t row = 0; // any row laid out, to find where member 1's body starts
        while (row < trace1.rows().size() && layout.rowTop(row) < 0)
            ++row;
        QVERIFY(row < trace1.rows().size());
        const auto viewportY = [&] {
            return timeline->viewportYOfRow(1, row) - layout.rowTop(row) - layout.metrics().rowHeight / 2 + curve->y
                + curve->height / 2;
        };
        timeline->verticalScrollBar()->setValue(
            std::max(0, viewportY() - timeline->viewport()->height() / 2 + timeline->scrollY()));
        const int y = viewportY();
        QVERIFY2(y > 0 && y < timeline->viewport()->height(), qPrintable(QString::number(y)));
        // At the x of train_optimized's GPU peak (core's memory report), where much is alive.
        const analysis::MemoryReport report =
            analysis::makeMemoryReport(facts::makeTraceFacts(load("train_optimized")));
        const analysis::DeviceMemory* device = nullptr;
        for (const analysis::DeviceMemory& d : report.devices)
            if (!d.isHost && !device)
                device = &d;
        QVERIFY(device && device->peakAllocated > 0);
        QCOMPARE(device->peakAllocated, gpuPeakAllocated("train_optimized"));
        const int x = int(std::lround(timeline->viewportXOf(1, device->peakTime)));
        QVERIFY(x > TimelineRenderer::kLabelWidth && x < TimelineRenderer::kLabelWidth + timeline->timeAreaWidth());
        const TimeNs clicked = timeline->toTraceTime(1, timeline->timeAtViewportX(x));
        QSignalSpy reports(memory, &MemoryPanel::reportReady);
        QTest::mouseClick(timeline->viewport(), Qt::LeftButton, {}, QPoint(x, y));
        QCOMPARE(pickerOf(window, "memoryDock")->member(), 1u);
        QCOMPARE(memory->member(), 1u);
        QTRY_VERIFY_WITH_TIMEOUT(reports.count() > 0, 60000);
        QCOMPARE(memory->liveModel()->time(), clicked);

        // Member 1's numbers: train_optimized's peak and what is alive at the clicked time.
        QVERIFY(memory->currentDevice());
        QCOMPARE(QString::fromStdString(memory->currentDevice()->name), QString::fromStdString(device->name));
        QCOMPARE(memory->currentDevice()->peakAllocated, device->peakAllocated);
        const std::vector<std::uint32_t> live = analysis::liveAllocationsAt(report, *device, clicked);
        QVERIFY(!live.empty());
        std::int64_t bytes = 0;
        for (const std::uint32_t a : live)
            bytes += device->allocations[a].bytes;
        QCOMPARE(memory->liveModel()->rowCount(), int(live.size()));
        QCOMPARE(memory->liveModel()->totalBytes(), bytes);
    }
};

QTEST_MAIN(TestMemberDocks)
#include "tst_memberdocks.moc"
