// The Critical Path dock: paths arrive off the GUI thread, the highlight shows the chosen
// step's path on the timeline, a what-if re-solves it, a segment click selects its slice.
#include "core/analysis/criticalpath.h"
#include "fixtureloader.h"
#include "widgets/criticalpathbreakdownmodel.h"
#include "widgets/criticalpathpanel.h"
#include "widgets/criticalpathsegmentsmodel.h"
#include "widgets/timelinewidget.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

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
};

QTEST_MAIN(TstCriticalPathPanel)
#include "tst_criticalpathpanel.moc"
