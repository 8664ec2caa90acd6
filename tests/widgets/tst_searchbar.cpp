#include "fixture.h"
#include "fixturejson.h"
#include "widgets/heightgrip.h"
#include "widgets/searchbar.h"
#include "widgets/searchresultsmodel.h"
#include "windowtesting.h"

#include <QApplication>
#include <QLineEdit>
#include <QMouseEvent>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace ks;

class TestSearchBar : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const Trace> m_trace;

private Q_SLOTS:
    void initTestCase()
    {
        kstest::useTestSettings();
        m_trace = test::loadFixture("transformer");
    }

    // Issue 19 item 6: a shape finds the ops that took it, off the GUI thread, whatever
    // the spacing typed; the results list names them.
    void findsOpsByShapeStringInArgs()
    {
        const auto trace = test::loadFixture("train_baseline");
        // Independently, from the JSON: complete events whose args hold the shape.
        const nlohmann::json doc = kstest::readGz(kstest::fixture("train_baseline.pt.trace.json.gz"));
        QStringList expected;
        for (const auto& event : doc["traceEvents"]) {
            if (event.value("ph", "") == "X" && event.contains("args")
                && event["args"].dump().find("[[16,256,1536]]") != std::string::npos)
                expected << QString::fromStdString(event["name"].get<std::string>());
        }
        QVERIFY(expected.size() >= 6);

        SearchBar bar;
        bar.setTrace(trace);
        bar.show();
        QSignalSpy finished(&bar, &SearchBar::argsSearchFinished);
        QSignalSpy argHighlights(&bar, &SearchBar::sliceMatchesChanged);
        bar.setQuery(QStringLiteral("[[16,256, 1536]]"));
        QVERIFY(bar.isSearchingArgs());
        QVERIFY(finished.wait(20000));
        QStringList names;
        for (SliceId s : bar.matches())
            names << QString::fromUtf8(trace->str(trace->slices().name[s]).data(),
                                       qsizetype(trace->str(trace->slices().name[s]).size()));
        expected.sort();
        names.sort();
        QCOMPARE(names, expected);
        QCOMPARE(bar.countText(), tr("%n match(es)", nullptr, int(expected.size())));
        QCOMPARE(argHighlights.last().at(0).value<std::vector<SliceId>>().size(), std::size_t(expected.size()));
        // The list: a row per match in time order, and activating a row jumps to it.
        QCOMPARE(bar.resultsModel()->rowCount(), int(expected.size()));
        const SliceId second = bar.matches()[1];
        QCOMPARE(bar.resultsModel()->sliceAt(1), second);
        QCOMPARE(bar.resultsModel()->index(1, SearchResultsModel::Track).data().toString(),
                 QString::fromStdString(trace->trackDisplayName(trace->trackOf(second))));
        QSignalSpy activated(&bar, &SearchBar::matchActivated);
        bar.setResultsListShown(true);
        Q_EMIT bar.resultsView()->activated(bar.resultsModel()->index(1, 0));
        QCOMPARE(activated.last().at(0).value<SliceId>(), second);
        QCOMPARE(bar.currentIndex(), 1);
    }

    void countsMatchesCaseInsensitively_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<int>("count");
        QTest::newRow("aten::mm") << "aten::mm" << 24;
        QTest::newRow("upper case") << "ATEN::MM" << 24;
        QTest::newRow("xmma kernels") << "xmma" << 33;
        QTest::newRow("nothing") << "no such op" << 0;
    }

    void countsMatchesCaseInsensitively()
    {
        QFETCH(QString, query);
        QFETCH(int, count);
        SearchBar bar;
        bar.setTrace(m_trace);
        QSignalSpy highlight(&bar, &SearchBar::highlightChanged);
        bar.setQuery(query);
        QCOMPARE(int(bar.matches().size()), count);
        QCOMPARE(highlight.count(), 1);
        for (SliceId s : bar.matches())
            QVERIFY(
                QString::fromUtf8(m_trace->str(m_trace->slices().name[s]).data()).contains(query, Qt::CaseInsensitive));
    }

    void enterStepsThroughMatchesInTimeOrder()
    {
        SearchBar bar;
        bar.setTrace(m_trace);
        bar.show();
        QSignalSpy activated(&bar, &SearchBar::matchActivated);
        QTest::keyClicks(bar.lineEdit(), "aten::mm");
        // Enter runs the pending (debounced) search at once, then steps.
        for (int i = 0; i < 24; ++i)
            QTest::keyClick(bar.lineEdit(), Qt::Key_Return);
        QCOMPARE(activated.count(), 24);
        std::vector<SliceId> seen;
        for (const auto& args : activated)
            seen.push_back(args.at(0).value<SliceId>());
        for (std::size_t i = 1; i < seen.size(); ++i)
            QVERIFY(m_trace->slices().start[seen[i - 1]] <= m_trace->slices().start[seen[i]]);
        std::vector<SliceId> unique = seen;
        std::sort(unique.begin(), unique.end());
        QCOMPARE(std::unique(unique.begin(), unique.end()) - unique.begin(), 24);
        QCOMPARE(bar.currentIndex(), 23);

        // Enter wraps around to the first; Shift+Enter goes back to the last.
        QTest::keyClick(bar.lineEdit(), Qt::Key_Return);
        QCOMPARE(activated.last().at(0).value<SliceId>(), seen.front());
        QTest::keyClick(bar.lineEdit(), Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(activated.last().at(0).value<SliceId>(), seen.back());
    }

    // Issue 35: the results list shows fifteen whole rows, one line each (long names elided in
    // the middle, the whole name in the tooltip), tracks not wrapped; its grip makes it taller
    // or shorter, and the next search bar (the next session) keeps that height.
    void resultsListShowsFifteenOneLineRowsAndKeepsItsHeight()
    {
        QSettings().remove(QStringLiteral("search/resultsRows"));
        SearchBar bar;
        bar.resize(900, 600);
        bar.setTrace(m_trace);
        bar.show();
        QVERIFY(QTest::qWaitForWindowExposed(&bar));
        bar.setQuery("aten::");
        bar.setResultsListShown(true);
        QTableView* list = bar.resultsView();
        QVERIFY(bar.resultsModel()->rowCount() > 30);
        QVERIFY(!list->wordWrap());
        QCOMPARE(list->textElideMode(), Qt::ElideMiddle);
        const int row = list->rowHeight(0);
        QVERIFY(row <= list->fontMetrics().height() + 8); // one line
        QCOMPARE(list->viewport()->height() / row, 15);
        for (int r = 0; r < 15; ++r)
            QCOMPARE(list->rowHeight(r), row);
        const QModelIndex name = bar.resultsModel()->index(0, SearchResultsModel::Name);
        QCOMPARE(name.data(Qt::ToolTipRole).toString(), name.data().toString());

        // Dragging the grip down by five rows and a bit shows twenty.
        HeightGrip* grip = bar.resultsGrip();
        QVERIFY(grip->isVisible());
        const QPoint from = grip->rect().center();
        QTest::mousePress(grip, Qt::LeftButton, {}, from);
        QMouseEvent move(QEvent::MouseMove, QPointF(from + QPoint(0, 5 * row + 2)),
                         QPointF(grip->mapToGlobal(from + QPoint(0, 5 * row + 2))), Qt::NoButton, Qt::LeftButton,
                         Qt::NoModifier);
        QApplication::sendEvent(grip, &move);
        QTest::mouseRelease(grip, Qt::LeftButton, {}, from + QPoint(0, 5 * row + 2));
        QCOMPARE(bar.resultsRows(), 20);
        QTRY_COMPARE(list->viewport()->height() / row, 20);
        QCOMPARE(QSettings().value(QStringLiteral("search/resultsRows")).toInt(), 20);
        SearchBar next;
        QCOMPARE(next.resultsRows(), 20);
        // Never fewer than three rows.
        next.setResultsRows(0);
        QCOMPARE(next.resultsRows(), 3);
        QSettings().remove(QStringLiteral("search/resultsRows"));
    }

    // Issue 35: Enter right after typing a shape (which only args hold) jumps to the first op
    // that took it once the args search has found them, in time order.
    void enterBeforeTheArgsMatchJumpsWhenTheyCome()
    {
        const auto trace = test::loadFixture("train_baseline");
        SearchBar bar;
        bar.setTrace(trace);
        bar.show();
        QSignalSpy activated(&bar, &SearchBar::matchActivated);
        QSignalSpy finished(&bar, &SearchBar::argsSearchFinished);
        QTest::keyClicks(bar.lineEdit(), "[[16,256,1536]]");
        QTest::keyClick(bar.lineEdit(), Qt::Key_Return); // before the debounce, and before any match
        QVERIFY(bar.isSearchingArgs());
        QVERIFY(bar.matches().empty());
        QCOMPARE(activated.count(), 0);
        QVERIFY(finished.wait(20000));
        QVERIFY(bar.matches().size() >= 6);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.last().at(0).value<SliceId>(), bar.matches().front());
        QCOMPARE(bar.currentIndex(), 0);
        // The first in time: no other match starts before it.
        for (SliceId s : bar.matches())
            QVERIFY(trace->slices().start[s] >= trace->slices().start[bar.matches().front()]);
    }

    void escapeClearsHighlight()
    {
        SearchBar bar;
        bar.setTrace(m_trace);
        bar.show();
        bar.setQuery("aten::mm");
        QSignalSpy highlight(&bar, &SearchBar::highlightChanged);
        QTest::keyClick(bar.lineEdit(), Qt::Key_Escape);
        QCOMPARE(highlight.count(), 1);
        QVERIFY(highlight.at(0).at(0).value<std::vector<bool>>().empty());
        QVERIFY(bar.isHidden());
    }
};

QTEST_MAIN(TestSearchBar)
#include "tst_searchbar.moc"
