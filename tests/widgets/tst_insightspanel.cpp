// The Insights dock: findings arrive off the GUI thread, selecting one highlights its
// evidence on the timeline, Previous/Next select and reveal it, the count label follows.
#include "core/analysis/insights.h"
#include "fixtureevents.h"
#include "fixtureloader.h"
#include "widgets/insightsmodel.h"
#include "widgets/insightspanel.h"
#include "widgets/timelinewidget.h"

#include <QIcon>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QTextBrowser>

using namespace ks;

class TstInsightsPanel : public QObject {
    Q_OBJECT

    static int rowOf(const InsightsPanel& panel, const char* id)
    {
        for (int row = 0; row < panel.model()->rowCount(); ++row) {
            if (panel.model()->index(row, 0).data(InsightsModel::kIdRole).toString() == QLatin1String(id))
                return row;
        }
        return -1;
    }

private slots:
    void selectingAnInsightHighlightsItsEvidence()
    {
        TimelineWidget timeline;
        timeline.resize(1400, 700);
        InsightsPanel panel(&timeline);
        QSignalSpy ready(&panel, &InsightsPanel::insightsReady);
        const auto trace = testing::fixtureTrace("train_baseline");
        timeline.setTrace(trace);
        QVERIFY(ready.wait(60000));
        QVERIFY(panel.model()->rowCount() >= 3);
        QCOMPARE(panel.countLabel()->text(), QStringLiteral("%1 insights").arg(panel.model()->rowCount()));
        // Sorted by time at stake.
        for (int row = 1; row < panel.model()->rowCount(); ++row)
            QVERIFY(panel.model()->insightAt(row - 1)->timeUs >= panel.model()->insightAt(row)->timeUs);

        // The pageable copies: the fixture's three "Memcpy HtoD (Pageable -> Device)" events.
        const kstest::FixtureEvents fixture("train_baseline");
        const auto copies =
            fixture.select("gpu_memcpy", [](const std::string& n) { return n.find("Pageable") != std::string::npos; });
        const int row = rowOf(panel, "pageable-copy");
        QVERIFY(row >= 0);
        panel.view()->setCurrentIndex(panel.model()->index(row, 1)); // as a click does
        const auto& highlighted = timeline.highlightedSlices();
        QCOMPARE(highlighted.size(), copies.size());
        for (std::size_t i = 0; i < copies.size(); ++i) {
            QCOMPARE(std::string(trace->str(trace->slices().name[highlighted[i]])),
                     copies[i]["name"].get<std::string>());
            QCOMPARE(double(trace->slices().start[highlighted[i]]) / 1000.0, copies[i]["ts"].get<double>());
        }

        // Next/Previous walk the evidence: select and reveal.
        panel.nextEvidence();
        QCOMPARE(timeline.selectedSlice(), highlighted[0]);
        panel.nextEvidence();
        QCOMPARE(timeline.selectedSlice(), highlighted[1]);
        panel.previousEvidence();
        QCOMPARE(timeline.selectedSlice(), highlighted[0]);
        panel.previousEvidence(); // wraps around
        QCOMPARE(timeline.selectedSlice(), highlighted[2]);
        const TimeNs start = trace->slices().start[highlighted[2]];
        QVERIFY(timeline.timeScale().viewStart() <= start);
        QVERIFY(timeline.timeScale().viewEnd(timeline.timeAreaWidth()) >= trace->slices().end(highlighted[2]));

        // Another insight replaces the highlight: the six stream syncs of host-sync.
        panel.selectInsight(rowOf(panel, "host-sync"));
        QCOMPARE(timeline.highlightedSlices().size(), std::size_t(6));
        for (const SliceId s : timeline.highlightedSlices())
            QCOMPARE(std::string(trace->str(trace->slices().name[s])), std::string("cudaStreamSynchronize"));

        // No insight selected: nothing highlighted or dimmed.
        panel.selectInsight(-1);
        panel.view()->clearSelection();
        panel.view()->setCurrentIndex({});
        QVERIFY(timeline.highlightedSlices().empty());
    }

    // Issue 35: selecting gpu-idle shades the gaps it counts on the timeline: each one a range
    // in which no GPU op runs on any device, together the idle time the finding reports.
    void gpuIdleShadesTheGapsItCounts()
    {
        TimelineWidget timeline;
        timeline.resize(1400, 700);
        InsightsPanel panel(&timeline);
        QSignalSpy ready(&panel, &InsightsPanel::insightsReady);
        const auto trace = testing::fixtureTrace("slowloader");
        timeline.setTrace(trace);
        QVERIFY(ready.wait(60000));
        const int row = rowOf(panel, "gpu-idle");
        QVERIFY(row >= 0);
        QVERIFY(timeline.shadedRanges(0).empty());
        panel.selectInsight(row);
        const analysis::Insight* idle = panel.model()->insightAt(row);
        const auto& shaded = timeline.shadedRanges(0);
        QCOMPARE(shaded.size(), idle->evidence.size());
        const SliceTable& slices = trace->slices();
        for (std::size_t i = 0; i < shaded.size(); ++i) {
            QCOMPARE(shaded[i].start, idle->evidence[i].start);
            QCOMPARE(shaded[i].end - shaded[i].start, idle->evidence[i].duration);
            QVERIFY(shaded[i].end - shaded[i].start >= analysis::thresholds::kMinIdleGapNs);
            // Independently of the detector: nothing runs on a GPU inside the shaded gap.
            for (SliceId s = 0; s < slices.size(); ++s) {
                const Process& process = trace->processes()[trace->tracks()[trace->trackOf(s)].process];
                const SliceClass kind = trace->classOf(s);
                if (process.isDevice
                    && (kind == SliceClass::Kernel || kind == SliceClass::Memcpy || kind == SliceClass::Memset))
                    QVERIFY(slices.end(s) <= shaded[i].start || slices.start[s] >= shaded[i].end);
            }
        }
        // Another finding (or none) takes the shading away.
        panel.selectInsight(-1);
        panel.view()->setCurrentIndex({});
        QVERIFY(timeline.shadedRanges(0).empty());
    }

    void visibleRangeOnlyKeepsWhatIsInView()
    {
        TimelineWidget timeline;
        timeline.resize(1400, 700);
        InsightsPanel panel(&timeline);
        QSignalSpy ready(&panel, &InsightsPanel::insightsReady);
        const auto trace = testing::fixtureTrace("train_baseline");
        timeline.setTrace(trace);
        QVERIFY(ready.wait(60000));
        const int row = rowOf(panel, "pageable-copy");
        const analysis::Insight* insight = panel.model()->insightAt(row);
        // View the first step only: one of the three copies.
        const auto step = firstStep(trace);
        timeline.setVisibleRange(step.first, step.second);
        panel.setVisibleRangeOnly(true);
        panel.selectInsight(row);
        QCOMPARE(panel.currentEvidence().size(), std::size_t(1));
        QCOMPARE(panel.currentEvidence().front().start, insight->evidence.front().start);
        QCOMPARE(timeline.highlightedSlices().size(), std::size_t(1));
    }

    // In a dock as narrow as on a 1280-pixel screen the finding keeps most of the width: its
    // severity is a coloured mark (and a word in its tooltip and details), its share sits with
    // its time.
    void narrowDockKeepsTheFindingReadable()
    {
        TimelineWidget timeline;
        InsightsPanel panel(&timeline);
        panel.resize(380, 500);
        panel.show();
        QSignalSpy ready(&panel, &InsightsPanel::insightsReady);
        timeline.setTrace(testing::fixtureTrace("train_baseline"));
        QVERIFY(ready.wait(60000));
        // Three columns shown; the trace column only when several traces' findings are listed.
        QCOMPARE(panel.model()->columnCount(), 4);
        QVERIFY(panel.view()->isColumnHidden(InsightsModel::MemberColumn));
        const int viewport = panel.view()->viewport()->width();
        QVERIFY2(panel.view()->columnWidth(InsightsModel::TitleColumn) * 2 > viewport,
                 qPrintable(QStringLiteral("finding %1 px of %2")
                                .arg(panel.view()->columnWidth(InsightsModel::TitleColumn))
                                .arg(viewport)));
        const int row = rowOf(panel, "pageable-copy");
        const analysis::Insight* insight = panel.model()->insightAt(row);
        const QModelIndex title = panel.model()->index(row, InsightsModel::TitleColumn);
        const QString severity = title.data(InsightsModel::kSeverityRole).toString();
        QCOMPARE(severity,
                 QString::fromLatin1(insight->severity == analysis::Severity::High         ? "high"
                                         : insight->severity == analysis::Severity::Medium ? "medium"
                                                                                           : "low"));
        QVERIFY(!title.data(Qt::DecorationRole).value<QIcon>().isNull());
        QVERIFY(title.data(Qt::ToolTipRole).toString().contains(severity));
        const QString perStep = panel.model()->index(row, InsightsModel::TimeColumn).data().toString();
        QVERIFY2(perStep.endsWith(QStringLiteral("%1 %)").arg(insight->share * 100.0, 0, 'f', 1)), qPrintable(perStep));
        panel.selectInsight(row);
        QVERIFY(panel.findChild<QTextBrowser*>()->toPlainText().contains(severity + QStringLiteral(" severity")));
        // Issue 35: no title is cut; a long one wraps onto more lines of its row.
        QTest::qWait(0); // rows take their heights in the next layout pass
        const int textWidth = panel.view()->columnWidth(InsightsModel::TitleColumn) - 16 - 12; // mark and margins
        for (int r = 0; r < panel.model()->rowCount(); ++r) {
            const QString text = panel.model()->index(r, InsightsModel::TitleColumn).data().toString();
            const QRect needed =
                panel.view()->fontMetrics().boundingRect(QRect(0, 0, textWidth, 10000), Qt::TextWordWrap, text);
            QVERIFY2(panel.view()->rowHeight(r) >= needed.height(),
                     qPrintable(QStringLiteral("%1: row %2 px, text %3 px")
                                    .arg(text)
                                    .arg(panel.view()->rowHeight(r))
                                    .arg(needed.height())));
        }
    }

private:
    static std::pair<TimeNs, TimeNs> firstStep(const std::shared_ptr<const Trace>& trace)
    {
        const auto facts = facts::makeTraceFacts(trace);
        return {facts->windows.steps[0].hostStart, facts->windows.steps[0].hostEnd};
    }
};

QTEST_MAIN(TstInsightsPanel)
#include "tst_insightspanel.moc"
