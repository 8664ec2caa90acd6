// The job view (issue 40): a folder of rank summaries opened in the main window. Eight ranks
// generated from the DDP fixtures with jitter, a planted straggler (rank 5, 6 ms late to every
// copy) and slow link (bench/tiler/rankvariant.h), summarized as `kinetoscope-cli summarize`
// does, beside a corrupt summary and one of another version. The verdict, the heat map and the
// rank rows come from the summaries alone and equal the full analysis of the eight traces;
// the suggested ranks then load in full on demand and replace their summary rows.
#include "app/jobcontroller.h"
#include "app/mainwindow.h"
#include "bench/tiler/tracetiler.h"
#include "core/analysis/ranksummary.h"
#include "widgets/gpusummarypanel.h"
#include "widgets/insightspanel.h"
#include "widgets/jobviewpanel.h"
#include "widgets/memberpicker.h"
#include "widgets/rankspanel.h"
#include "widgets/timelinewidget.h"
#include "widgets/waitheatmap.h"

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTabBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace ks;

namespace {

constexpr int kRanks = 8;

std::size_t ncclKernels(const Trace& trace)
{
    std::size_t n = 0;
    for (SliceId s = 0; s < trace.slices().size(); ++s)
        n += analysis::isNcclKernelName(trace.str(trace.slices().name[s])) ? 1 : 0;
    return n;
}

} // namespace

class TestJobWindow : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_summaries;
    std::vector<std::string> m_traces;
    bench::PlantedJob m_job = bench::plantedJob(kRanks);

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const std::string traces = m_dir.filePath(QStringLiteral("traces")).toStdString();
        m_summaries = m_dir.filePath(QStringLiteral("summaries"));
        std::filesystem::create_directories(traces);
        std::filesystem::create_directories(m_summaries.toStdString());
        const auto sources = bench::tilersInStep(
            {KS_TEST_DATA "/ddp_rank0.pt.trace.json.gz", KS_TEST_DATA "/ddp_rank1.pt.trace.json.gz"});
        for (int r = 0; r < kRanks; ++r) {
            const std::string path = traces + "/rank" + std::to_string(r) + ".pt.trace.json";
            QVERIFY(sources[std::size_t(r % 2)].write(path, 0, 2, m_job.variants[std::size_t(r)]).error.empty());
            m_traces.push_back(path);
            const LoadResult loaded = loadTraceFile(path);
            QVERIFY(loaded.ok());
            analysis::Workspace ws;
            ws.add(loaded.trace, path);
            const auto summary = analysis::summarizeMember(ws.members().front(), std::filesystem::file_size(path));
            std::ofstream(m_summaries.toStdString() + "/rank" + std::to_string(r) + analysis::kRankSummarySuffix)
                << analysis::rankSummaryToJson(summary).dump();
        }
        std::ofstream(m_summaries.toStdString() + "/rank98.summary.json") << "{\"format\": \"kinetoscope-rank-sum";
        std::ofstream(m_summaries.toStdString() + "/rank99.summary.json")
            << R"({"format": "kinetoscope-rank-summary", "version": 3})";
        QCOMPARE(m_job.straggler, 5);
        QCOMPARE(m_job.slowLink, 2);
    }

    // Opened as a folder given on the command line is: the verdict, the rank rows and the heat
    // map from the summaries equal the full analysis of the traces; the bad summaries are named.
    void jobViewFromSummariesAlone()
    {
        MainWindow window;
        window.show(); // as the application opens a folder given on its command line
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // Before: the Job dock says no job is open, the Ranks dock how to open several ranks.
        RanksPanel* jobRanks = window.jobPanel()->ranksPanel();
        QVERIFY(jobRanks->verdictLabel()->text().startsWith(QStringLiteral("No job open")));
        for (RanksPanel* ranks : window.findChildren<RanksPanel*>()) {
            if (ranks != jobRanks)
                QVERIFY(ranks->verdictLabel()->text().startsWith(QStringLiteral("Open several ranks")));
        }
        window.openFiles({m_summaries});
        JobController* job = window.job();
        QTRY_VERIFY_WITH_TIMEOUT(job->job() != nullptr, 20000);
        const analysis::JobView& view = *job->job();
        // The timeline shows the job's rows, not the hint of an empty window, and the Job dock is in front.
        QVERIFY(!window.findChild<QLabel*>(QStringLiteral("emptyTraceHint"))->isVisible());
        const auto tabBars = window.findChildren<QTabBar*>();
        QVERIFY(std::any_of(tabBars.begin(), tabBars.end(), [](const QTabBar* bar) {
            return bar->currentIndex() >= 0 && bar->tabText(bar->currentIndex()) == QLatin1String("Job");
        }));
        // The GPU Summary and the Insights say what the summaries leave out, not "none in this trace".
        auto* gpuSummary = window.findChild<GpuSummaryPanel*>();
        QTRY_VERIFY(gpuSummary->showsNoGpuMessage());
        QVERIFY(gpuSummary->noGpuMessage().contains(QStringLiteral("open them in full from the Job dock")));
        auto* insightsText = window.findChild<InsightsPanel*>()->findChild<QTextBrowser*>();
        QTRY_VERIFY(insightsText->toPlainText().contains(QStringLiteral("open them in full from the Job dock")));
        QCOMPARE(int(view.ranks.size()), kRanks);
        QCOMPARE(view.errors.size(), std::size_t(2));
        QVERIFY(QString::fromStdString(view.errors[0]).contains(QStringLiteral("rank98.summary.json: not valid JSON")));
        QVERIFY(QString::fromStdString(view.errors[1])
                    .contains(QStringLiteral("rank99.summary.json: rank summary format "
                                             "version 3, this build reads version 2")));
        QVERIFY(window.jobPanel()->errorsLabel()->isVisibleTo(&window));
        QVERIFY(window.jobPanel()->errorsLabel()->text().contains(QStringLiteral("rank99.summary.json")));

        QVERIFY(view.report.straggler.rank == std::optional<int>(5));
        QVERIFY(view.report.straggler.consistent);
        QVERIFY(window.jobPanel()->ranksPanel()->verdictLabel()->text().startsWith(
            QStringLiteral("rank 5 is the straggler")));

        // The full analysis of the eight traces, as the Ranks dock computes it.
        auto loaded = analysis::loadWorkspace(m_traces);
        loaded.workspace.alignAbsoluteClock();
        const analysis::RanksReport full = analysis::analyzeRanks(loaded.workspace);
        QVERIFY(full.straggler.rank == std::optional<int>(5));
        const analysis::WaitHeatMap& map = window.jobPanel()->heatMap()->map();
        QCOMPARE(int(map.ranks.size()), kRanks);
        QVERIFY(map.steps == (std::vector<long long>{2, 3, 4, 5, 6, 7})); // two copies of steps 2..4, renumbered
        TimeNs stragglerRow = 0;
        for (std::size_t row = 0; row < map.ranks.size(); ++row) {
            for (std::size_t column = 0; column < map.steps.size(); ++column) {
                const auto rank = full.waitCausedByStep.find(map.ranks[row]);
                const TimeNs expected = rank == full.waitCausedByStep.end() || !rank->second.count(map.steps[column])
                    ? 0
                    : rank->second.at(map.steps[column]);
                QCOMPARE(map.at(row, column), expected);
                if (map.ranks[row] == 5)
                    stragglerRow += map.at(row, column);
            }
        }
        // Every copy's two collectives per step made the seven others wait about 6 ms each.
        const auto fullStraggler = std::find_if(full.ranks.begin(), full.ranks.end(),
                                                [](const analysis::RankSummary& r) { return r.rank == 5; });
        QVERIFY(fullStraggler != full.ranks.end());
        QCOMPARE(stragglerRow, fullStraggler->waitCaused);
        QVERIFY(stragglerRow > 12 * 7 * 5'000'000LL);
        for (std::size_t column = 0; column < map.steps.size(); ++column)
            QVERIFY(map.at(5, column) > 0);

        // One row of collectives per rank, drawn from the summaries.
        QCOMPARE(window.timeline()->traceCount(), 1u);
        const auto rows = window.timeline()->traceAt(0);
        QCOMPARE(rows->processes().size(), std::size_t(kRanks));
        std::size_t collectives = 0;
        for (const auto& kernels : view.report.matching.kernels)
            collectives += kernels.size();
        QCOMPARE(collectives, std::size_t(kRanks * 12));
        QCOMPARE(std::size_t(rows->slices().size()), collectives);
    }

    // The suggested ranks (the straggler, the two that waited most, rank 0) load in full off
    // the GUI thread and replace their summary rows; the other ranks stay summary rows.
    void suggestedRanksLoadInFullOnDemand()
    {
        MainWindow window;
        window.openFiles({m_summaries});
        JobController* job = window.job();
        QTRY_VERIFY_WITH_TIMEOUT(job->job() != nullptr, 20000);
        const std::vector<int> suggested = job->job()->suggestedRanks();
        QCOMPARE(suggested.front(), 5);
        QVERIFY(std::find(suggested.begin(), suggested.end(), 0) != suggested.end());
        QVERIFY(suggested.size() >= 3);
        QTest::mouseClick(window.jobPanel()->openSuggestedButton(), Qt::LeftButton);
        QVERIFY(job->isLoading());
        QTRY_VERIFY_WITH_TIMEOUT(!job->isLoading() && !job->fullRanks().empty(), 30000);
        std::vector<int> sorted = suggested;
        std::sort(sorted.begin(), sorted.end());
        QVERIFY(job->fullRanks() == sorted);
        QVERIFY(!window.jobPanel()->progressBar()->isVisibleTo(&window));

        TimelineWidget* timeline = window.timeline();
        QCOMPARE(timeline->traceCount(), std::uint32_t(1 + suggested.size()));
        // The summary rows left: the ranks not open in full, each a process of the last trace.
        QCOMPARE(job->summaryRows().size(), kRanks - suggested.size());
        const Trace& rows = *timeline->traceAt(timeline->traceCount() - 1);
        QCOMPARE(rows.processes().size(), job->summaryRows().size());
        for (std::size_t i = 0; i < job->summaryRows().size(); ++i) {
            const analysis::RankSummaryFile& summary = job->job()->ranks[job->summaryRows()[i]];
            QVERIFY(std::find(sorted.begin(), sorted.end(), summary.identity.rank) == sorted.end());
            QCOMPARE(rows.processes()[i].name, summary.identity.label() + " · summary");
        }
        // Rank 5 in full, opened first: the first trace, with the NCCL kernels its summary listed.
        const auto straggler = timeline->traceAt(0);
        QCOMPARE(timeline->traceTitle(0), QString::fromStdString(job->job()->rank(5)->identity.label()));
        QCOMPARE(ncclKernels(*straggler), std::size_t(12));
        // The docks follow it, and their member pickers say so.
        QVERIFY(window.trace() == straggler);
        auto* operatorsDock = window.findChild<QDockWidget*>(QStringLiteral("operatorsDock"));
        const auto pickers = operatorsDock->findChildren<MemberPicker*>();
        QCOMPARE(pickers.size(), 1);
        QCOMPARE(pickers.front()->member(), 0u);
        QCOMPARE(pickers.front()->comboBox()->currentText(), timeline->traceTitle(0));
    }

    // The verdict's step button opens the straggler in full (its step needs its trace).
    void stragglerStepButtonOpensItInFull()
    {
        MainWindow window;
        window.openFiles({m_summaries});
        JobController* job = window.job();
        QTRY_VERIFY_WITH_TIMEOUT(job->job() != nullptr, 20000);
        QPushButton* button = window.jobPanel()->ranksPanel()->stragglerStepButton();
        QVERIFY(button->isEnabled());
        QTest::mouseClick(button, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!job->isLoading() && !job->fullRanks().empty(), 30000);
        QVERIFY(job->fullRanks() == std::vector<int>{5});
        QCOMPARE(job->summaryRows().size(), std::size_t(kRanks - 1));
    }
};

QTEST_MAIN(TestJobWindow)
#include "tst_jobwindow.moc"
