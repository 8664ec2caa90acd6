#include "fixture.h"
#include "widgets/searchbar.h"

#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

using namespace ks;

class TestSearchBar : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const Trace> m_trace;

private Q_SLOTS:
    void initTestCase() { m_trace = test::loadFixture("transformer"); }

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
            QVERIFY(QString::fromUtf8(m_trace->str(m_trace->slices().name[s]).data()).contains(query, Qt::CaseInsensitive));
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
