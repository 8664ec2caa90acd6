// The job view's core (issue 40) on the recorded straggler pair (rank 1 sleeps 20 ms before
// every step): opened from the two ranks' summaries, the heat map of waiting caused equals the
// full analysis of the two traces cell by cell, the suggested ranks start with the straggler,
// and the collective rows trace holds each rank's NCCL kernels on the absolute clock.
#include "core/analysis/jobview.h"
#include "core/loading/loader.h"

#include "testfiles.h"

#include <QTest>

#include <fstream>

using namespace ks;

class TestJobView : public QObject {
    Q_OBJECT

    kstest::TempDir m_dir;
    std::vector<std::string> m_traces;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        for (const char* rank : {"straggler_rank0", "straggler_rank1"}) {
            const std::string path = std::string(KS_TEST_DATA "/") + rank + ".pt.trace.json.gz";
            m_traces.push_back(path);
            const LoadResult loaded = loadTraceFile(path);
            QVERIFY(loaded.ok());
            analysis::Workspace ws;
            ws.add(loaded.trace, path);
            std::ofstream(m_dir.filePath(std::string(rank)) + analysis::kRankSummarySuffix)
                << analysis::rankSummaryToJson(analysis::summarizeMember(ws.members().front(), 0)).dump();
        }
    }

    void heatMapEqualsTheFullAnalysis()
    {
        const analysis::JobView view = analysis::openJobView(m_dir.path());
        QVERIFY(view.errors.empty());
        QCOMPARE(view.ranks.size(), std::size_t(2));
        QVERIFY(view.report.straggler.rank == std::optional<int>(1));

        auto loaded = analysis::loadWorkspace(m_traces);
        loaded.workspace.alignAbsoluteClock();
        const analysis::RanksReport full = analysis::analyzeRanks(loaded.workspace);
        const analysis::WaitHeatMap& map = view.heatMap;
        QVERIFY(map.ranks == (std::vector<int>{0, 1}));
        QVERIFY(!map.steps.empty());
        TimeNs row1 = 0, max = 0;
        for (std::size_t row = 0; row < 2; ++row) {
            for (std::size_t column = 0; column < map.steps.size(); ++column) {
                const auto& byStep = full.waitCausedByStep;
                const auto rank = byStep.find(map.ranks[row]);
                const TimeNs expected = rank != byStep.end() && rank->second.count(map.steps[column])
                    ? rank->second.at(map.steps[column])
                    : 0;
                QCOMPARE(map.at(row, column), expected);
                row1 += row == 1 ? expected : 0;
                max = std::max(max, expected);
            }
        }
        QCOMPARE(map.max, max);
        // Rank 1 caused all the waiting: about 20 ms per step, summed over its steps.
        QCOMPARE(row1, full.ranks[1].waitCaused);
        QCOMPARE(row1, full.straggler.totalWait);
        QVERIFY(row1 > TimeNs(map.steps.size()) * 15'000'000);
    }

    void suggestedRanksStartWithTheStraggler()
    {
        const analysis::JobView view = analysis::openJobView(m_dir.path());
        QVERIFY(view.suggestedRanks() == (std::vector<int>{1, 0})); // the straggler, the rank that waited (0)
    }

    void collectiveRowsAreEachRanksKernels()
    {
        const analysis::JobView view = analysis::openJobView(m_dir.path());
        const Trace& rows = *view.collectiveRows;
        QCOMPARE(rows.processes().size(), std::size_t(2));
        auto loaded = analysis::loadWorkspace(m_traces);
        loaded.workspace.alignAbsoluteClock();
        for (std::uint32_t p = 0; p < 2; ++p) {
            const auto& member = loaded.workspace.members()[p];
            QCOMPARE(rows.processes()[p].name, member.identity.label() + " · summary");
            const auto kernels = analysis::collectiveKernelsOf(member);
            const Track& track = rows.tracks()[rows.processes()[p].tracks.front()];
            QCOMPARE(std::size_t(track.sliceEnd - track.sliceBegin), kernels.size());
            for (std::size_t k = 0; k < kernels.size(); ++k) {
                const SliceId s = track.sliceBegin + SliceId(k);
                QCOMPARE(rows.slices().start[s], kernels[k].start + member.offset);
                QCOMPARE(rows.slices().end(s), kernels[k].end + member.offset);
            }
        }
    }

    // The rows of the ranks not open in full: a trace of their processes alone.
    void collectiveRowsForSomeRanksHoldOnlyTheirs()
    {
        const analysis::JobView view = analysis::openJobView(m_dir.path());
        QVERIFY(view.collectiveRowsFor({0, 1}) == view.collectiveRows);
        const auto rows = view.collectiveRowsFor({1});
        QCOMPARE(rows->processes().size(), std::size_t(1));
        QCOMPARE(rows->processes()[0].name, view.ranks[1].identity.label() + " · summary");
        // The straggler's NCCL kernels, as its own trace has them.
        auto loaded = analysis::loadWorkspace(m_traces);
        loaded.workspace.alignAbsoluteClock();
        const auto& straggler = loaded.workspace.members()[1];
        const auto kernels = analysis::collectiveKernelsOf(straggler);
        QCOMPARE(rows->slices().size(), kernels.size());
        QCOMPARE(rows->slices().start[0], kernels.front().start + straggler.offset);
        QCOMPARE(rows->slices().end(rows->slices().size() - 1), kernels.back().end + straggler.offset);
        // Both are marked as summary rows, for the views that analyse the timeline's traces; a trace is not.
        QVERIFY(analysis::isSummaryRows(*view.collectiveRows));
        QVERIFY(analysis::isSummaryRows(*rows));
        QVERIFY(!analysis::isSummaryRows(*straggler.trace));
    }

    void unreadableFolderGivesAnEmptyJob()
    {
        const analysis::JobView view = analysis::openJobView(m_dir.filePath("none"));
        QVERIFY(view.ranks.empty());
        QVERIFY(!view.report.straggler.rank);
        QCOMPARE(view.collectiveRows->slices().size(), std::size_t(0));
    }
};

QTEST_MAIN(TestJobView)
#include "tst_jobview.moc"
