// The Critical Path dock: paths arrive off the GUI thread, the highlight shows the chosen
// step's path on the timeline, a what-if re-solves it, a segment click selects its slice.
#include "clirun.h"
#include "core/analysis/criticalpath.h"
#include "core/analysis/rankscriticalpath.h"
#include "core/analysis/workspace.h"
#include "fixturejson.h"
#include "fixtureloader.h"
#include "widgets/criticalpathbreakdownmodel.h"
#include "widgets/criticalpathpanel.h"
#include "widgets/criticalpathsegmentsmodel.h"
#include "widgets/memberpicker.h"
#include "widgets/timelinewidget.h"

#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QSplitter>
#include <QTableView>
#include <QTest>

#include <cmath>

using namespace ks;

class TstCriticalPathPanel : public QObject {
    Q_OBJECT

private slots:
    void highlightsWhatIfsAndSelection()
    {
        TimelineWidget timeline;
        timeline.resize(1400, 700);
        CriticalPathPanel panel(&timeline);
        QSignalSpy ready(&panel, &CriticalPathPanel::pathsReady);
        const auto trace = testing::fixtureTrace("train_baseline");
        timeline.setTrace(trace);
        QVERIFY(ready.wait(60000));
        // The same paths as the core computes.
        const auto expected = analysis::criticalPathOf(facts::makeTraceFacts(trace)).analyzeSteps();
        QCOMPARE(panel.steps().size(), expected.size());
        QCOMPARE(panel.steps()[0].path.length, expected[0].path.length);
        QCOMPARE(panel.segmentsModel()->rowCount(), int(expected[0].path.segments.size()));
        QCOMPARE(panel.breakdownModel()->rowCount(), analysis::kPathKindCount);

        // The highlight: the path's ops, calls and GPU ops, no annotation.
        QVERIFY(timeline.highlightedSlices().empty());
        panel.setPathHighlighted(true);
        const auto highlighted = timeline.highlightedSlices();
        QVERIFY(!highlighted.empty());
        for (const auto& seg : expected[0].path.segments)
            if (seg.item.slice != kNoSlice && trace->classOf(seg.item.slice) != SliceClass::UserAnnotation)
                QVERIFY(std::binary_search(highlighted.begin(), highlighted.end(), seg.item.slice));
        panel.setPathHighlighted(false);
        QVERIFY(timeline.highlightedSlices().empty());

        // Clicking a segment selects it on the timeline: the pageable copy (train_baseline's
        // path is on the CPU but for its copies).
        int copyRow = -1;
        for (int row = 0; row < panel.segmentsModel()->rowCount() && copyRow < 0; ++row)
            if (panel.segmentsModel()->segmentAt(row)->kind == analysis::PathKind::Memcpy)
                copyRow = row;
        QVERIFY(copyRow >= 0);
        panel.segmentsView()->setCurrentIndex(panel.segmentsModel()->index(copyRow, 1));
        QCOMPARE(timeline.selectedSlice(), panel.segmentsModel()->segmentAt(copyRow)->item.slice);
        QCOMPARE(std::string(trace->str(trace->slices().name[timeline.selectedSlice()])),
                 std::string("Memcpy HtoD (Pageable -> Device)"));

        // A what-if: halving every CPU op's own time shortens the step; the summary says so.
        std::string error;
        panel.addWhatIf(*analysis::WhatIf::parse("category:cpu_op=0.5", error));
        QVERIFY(ready.wait(60000));
        QVERIFY(panel.steps()[0].whatIf);
        QVERIFY(panel.steps()[0].whatIf->length < panel.steps()[0].path.length);
        QVERIFY(panel.summaryLabel()->text().contains(QStringLiteral("what-ifs")));
        panel.removeWhatIf(0);
        QVERIFY(ready.wait(60000));
        QVERIFY(!panel.steps()[0].whatIf);

        // A selected range gets its own path after the steps, as long as the range.
        const TimeNs start = expected[1].start, half = (expected[1].end - expected[1].start) / 2;
        timeline.setSelectedRange(start, start + half);
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel.steps().size(), expected.size() + 1);
        QCOMPARE(panel.steps().back().path.length, half);
        timeline.clearSelectedRange();
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel.steps().size(), expected.size());
    }

    // Two ranks on the timeline, rank 1 shifted on the axis: the picker's member gets its own
    // paths (the core's on that trace), its highlight, and a selected range in its own time.
    void followsThePickedMemberAndItsRange()
    {
        TimelineWidget timeline;
        timeline.resize(1400, 700);
        CriticalPathPanel panel(&timeline);
        MemberPicker picker(&timeline);
        connect(&picker, &MemberPicker::memberChanged, &panel, &CriticalPathPanel::setMember);
        QSignalSpy ready(&panel, &CriticalPathPanel::pathsReady);
        const auto rank0 = testing::fixtureTrace("ddp_rank0");
        const auto rank1 = testing::fixtureTrace("ddp_rank1");
        const TimeNs shift = 3'000'000; // rank 1 drawn 3 ms later than its own clock
        timeline.setTraces({{rank0, 0, QStringLiteral("Rank 0"), {}}, {rank1, shift, QStringLiteral("Rank 1"), {}}});
        QVERIFY(ready.wait(60000));
        const auto expected0 = analysis::criticalPathOf(facts::makeTraceFacts(rank0)).analyzeSteps();
        QCOMPARE(panel.member(), std::uint32_t(0));
        QCOMPARE(panel.steps().size(), expected0.size());
        QCOMPARE(panel.steps()[0].path.length, expected0[0].path.length);

        picker.pin(1);
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel.member(), std::uint32_t(1));
        const auto analysis1 = analysis::criticalPathOf(facts::makeTraceFacts(rank1));
        const auto expected1 = analysis1.analyzeSteps();
        QCOMPARE(panel.steps().size(), expected1.size());
        for (std::size_t i = 0; i < expected1.size(); ++i) {
            QCOMPARE(panel.steps()[i].start, expected1[i].start); // rank 1's own time
            QCOMPARE(panel.steps()[i].path.length, expected1[i].path.length);
            QVERIFY(panel.steps()[i].path.breakdown == expected1[i].path.breakdown);
        }
        // The ranks' steps differ (rank 1's step 3 waits 2.8 ms in cudaEventSynchronize).
        QVERIFY(expected1[1].path.length != expected0[1].path.length);
        QCOMPARE(panel.segmentsModel()->rowCount(), int(expected1[0].path.segments.size()));

        // The highlight goes to rank 1's slices, none to rank 0's.
        panel.setPathHighlighted(true);
        QVERIFY(timeline.highlightedSlices(0).empty());
        const auto& lit = timeline.highlightedSlices(1);
        QVERIFY(!lit.empty());
        for (const auto& seg : expected1[0].path.segments)
            if (seg.item.slice != kNoSlice && rank1->classOf(seg.item.slice) != SliceClass::UserAnnotation)
                QVERIFY(std::binary_search(lit.begin(), lit.end(), seg.item.slice));
        panel.setPathHighlighted(false);
        QVERIFY(timeline.highlightedSlices(1).empty());

        // A segment click selects the slice on rank 1.
        panel.segmentsView()->setCurrentIndex(panel.segmentsModel()->index(1, 1));
        const auto* clicked = panel.segmentsModel()->segmentAt(1);
        if (clicked->item.slice != kNoSlice) {
            QCOMPARE(timeline.selection().trace, std::uint32_t(1));
            QCOMPARE(timeline.selection().slice, clicked->item.slice);
        }

        // A range selected on the axis over rank 1's step 2 window less its first 0.1 ms: it
        // waits 2.8 ms in cudaEventSynchronize for copies queued behind an all-reduce (through
        // an event recorded inside the range). Its path is the core's for the same range in
        // rank 1's time.
        const TimeNs from = expected1[0].start + 100'000, to = expected1[0].end;
        timeline.setSelectedRange(timeline.toPrimaryTime(1, from), timeline.toPrimaryTime(1, to));
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel.steps().size(), expected1.size() + 1);
        const auto range = analysis1.analyzeRange(from, to);
        const auto& shown = panel.steps().back();
        QCOMPARE(shown.start, from);
        QCOMPARE(shown.path.length, to - from);
        QVERIFY(shown.path.breakdown == range.path.breakdown);
        QCOMPARE(shown.path.segments.size(), range.path.segments.size());
        // The range's path waits in the cudaEventSynchronize for the all-reduces.
        TimeNs nccl = 0;
        for (const auto& seg : shown.path.segments)
            if (seg.kind == analysis::PathKind::Kernel && seg.family == "NCCL")
                nccl += seg.duration;
        QVERIFY2(nccl > 1'000'000, std::to_string(nccl).c_str());

        // Rank 0 again: the same range in rank 0's own time.
        picker.pin(0);
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel.member(), std::uint32_t(0));
        QCOMPARE(panel.steps().back().start, timeline.toPrimaryTime(1, from));
    }

    // The ranks of the DDP pair as a workspace: the dock solves rank 0's steps over both ranks
    // (rank 0's step 4 waits in its last all-reduce for rank 1), exactly as
    // `kinetoscope-cli critical-path --json ddp_rank0 ddp_rank1` does.
    void ranksSolvedTogetherAsTheCliDoes()
    {
        TimelineWidget timeline;
        timeline.resize(1400, 700);
        CriticalPathPanel panel(&timeline);
        QSignalSpy ready(&panel, &CriticalPathPanel::pathsReady);
        analysis::Workspace ranks;
        for (const char* name : {"ddp_rank0", "ddp_rank1"})
            ranks.add(testing::fixtureTrace(name), kstest::fixture(name) + ".pt.trace.json.gz");
        ranks.sortByRank();
        std::vector<TimelineTrace> traces;
        for (const auto& m : ranks.members())
            traces.push_back({m.trace, 0, QString::fromStdString(m.identity.label()), m.stepRules});
        timeline.setTraces(std::move(traces));
        QVERIFY(ready.wait(60000));
        panel.setRanks(ranks);
        QVERIFY(ready.wait(60000));

        const auto cli = kstest::runCliJson({"critical-path", "--json", kstest::fixture("ddp_rank0.pt.trace.json.gz"),
                                             kstest::fixture("ddp_rank1.pt.trace.json.gz")});
        QVERIFY(!cli.is_null());
        QCOMPARE(panel.steps().size(), cli["steps"].size());
        for (std::size_t i = 0; i < panel.steps().size(); ++i) {
            const auto& shown = panel.steps()[i];
            const auto& expected = cli["steps"][i];
            QCOMPARE(shown.step, expected["step"].get<long long>());
            QVERIFY(std::fabs(double(shown.path.length) / 1000.0 - expected["length_us"].get<double>()) < 1e-6);
            for (int k = 0; k < analysis::kPathKindCount; ++k) {
                const std::string key(analysis::pathKindName(analysis::PathKind(k)));
                const double us = double(shown.path.breakdown[std::size_t(k)]) / 1000.0;
                QVERIFY2(std::fabs(us - expected["breakdown"][key].get<double>()) < 1e-6, key.c_str());
            }
            QCOMPARE(shown.path.segments.size(), expected["segments"].size());
        }
        // Step 4 waits for rank 1: part of its path is on rank 1, and the dock's table says so.
        const auto& step4 = panel.steps()[2];
        QVERIFY(step4.path.breakdown[std::size_t(analysis::PathKind::CollectiveWait)] > 1'000'000);
        panel.selectStep(2);
        int onRank1 = -1;
        for (int row = 0; row < panel.segmentsModel()->rowCount() && onRank1 < 0; ++row)
            if (panel.segmentsModel()->segmentAt(row)->item.member == 1
                && panel.segmentsModel()->segmentAt(row)->item.slice != kNoSlice)
                onRank1 = row;
        QVERIFY(onRank1 >= 0);
        // Clicking it selects the slice on rank 1's trace.
        panel.segmentsView()->setCurrentIndex(panel.segmentsModel()->index(onRank1, 1));
        QCOMPARE(timeline.selection().trace, std::uint32_t(1));
        QCOMPARE(timeline.selection().slice, panel.segmentsModel()->segmentAt(onRank1)->item.slice);

        // The highlight lights up the path on both ranks: rank 1's all-reduce that began when
        // rank 0's wait ended (read from rank 1's trace) among it, joined to rank 0's by a lit link.
        panel.setPathHighlighted(true);
        const auto lit = [&](std::uint32_t trace, SliceId slice) {
            const auto& slices = timeline.highlightedSlices(trace);
            return std::binary_search(slices.begin(), slices.end(), slice);
        };
        for (const auto& seg : step4.path.segments)
            if (seg.item.slice != kNoSlice
                && timeline.traceAt(seg.item.member)->classOf(seg.item.slice) != SliceClass::UserAnnotation)
                QVERIFY2(lit(seg.item.member, seg.item.slice), seg.name.c_str());
        const auto wait = std::find_if(step4.path.segments.begin(), step4.path.segments.end(),
                                       [](const auto& seg) { return seg.kind == analysis::PathKind::CollectiveWait; });
        QVERIFY(wait != step4.path.segments.end());
        QCOMPARE(wait->item.member, 0u);
        const analysis::RanksCriticalPath paths(ranks);
        const Trace& rank1 = *timeline.traceAt(1);
        SliceId lastArrival = kNoSlice;
        for (SliceId s = 0; s < rank1.slices().size(); ++s)
            if (rank1.classOf(s) == SliceClass::Kernel && rank1.str(rank1.slices().name[s]).starts_with("nccl")
                && paths.toAxis(1, rank1.slices().start[s]) == wait->start + wait->duration)
                lastArrival = s;
        QVERIFY(lastArrival != kNoSlice);
        QVERIFY(lit(1, lastArrival));
        QVERIFY(lit(0, wait->item.slice));
        const CrossTraceLink link{{1, lastArrival}, {0, wait->item.slice}};
        QCOMPARE(timeline.highlightedCrossLinks().size(), std::size_t(1));
        QVERIFY(timeline.highlightedCrossLinks().front() == link);
        // Rank 0's step 2 stays on rank 0: rank 1 is dimmed whole, nothing of it lit.
        panel.selectStep(0);
        QVERIFY(panel.steps()[0].path.breakdown[std::size_t(analysis::PathKind::CollectiveWait)] == 0);
        QVERIFY(!timeline.highlightedSlices(0).empty());
        QCOMPARE(timeline.highlightedSlices(1), std::vector<SliceId>{kNoSlice});
        QVERIFY(timeline.highlightedCrossLinks().empty());
        panel.setPathHighlighted(false);
        QVERIFY(timeline.highlightedSlices(0).empty() && timeline.highlightedSlices(1).empty());
        QVERIFY(timeline.highlightedCrossLinks().empty());

        // Not ranks any more (a comparison, or one trace): each trace alone again.
        panel.setRanks({});
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel.steps()[2].path.breakdown[std::size_t(analysis::PathKind::CollectiveWait)], TimeNs(0));
    }

    // Docked under the timeline (wide and short) the breakdown and the segments sit side by
    // side; tall, one above the other. The what-if list shows only once there is a what-if.
    void layoutFollowsTheDockShape()
    {
        CriticalPathPanel panel(nullptr);
        panel.resize(1800, 250);
        panel.show();
        auto* tables = panel.findChild<QSplitter*>();
        QVERIFY(tables);
        QCOMPARE(tables->orientation(), Qt::Horizontal);
        panel.resize(400, 700);
        QCOMPARE(tables->orientation(), Qt::Vertical);
        auto* list = panel.findChild<QListWidget*>();
        QVERIFY(list && list->isHidden());
        std::string error;
        panel.addWhatIf(*analysis::WhatIf::parse("kernel:gemm=0.5", error));
        QVERIFY(!list->isHidden());
        panel.removeWhatIf(0);
        QVERIFY(list->isHidden());
    }
};

QTEST_MAIN(TstCriticalPathPanel)
#include "tst_criticalpathpanel.moc"
