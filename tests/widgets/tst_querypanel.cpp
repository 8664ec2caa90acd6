// The Query dock: rows read off the GUI thread a page at a time, equal to the model; a row with
// ts and track selects its slice on the timeline; errors, Stop and saved queries.
#include "fixture.h"
#include "widgets/querypanel.h"
#include "widgets/queryresultmodel.h"
#include "widgets/timelinewidget.h"

#include <QComboBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

using namespace ks;

class TestQueryPanel : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const Trace> m_trace;

    static bool runAndWait(QueryPanel& panel, const QString& sql)
    {
        QSignalSpy ready(&panel, &QueryPanel::pageReady);
        QSignalSpy failed(&panel, &QueryPanel::queryFailed);
        panel.editor()->setPlainText(sql);
        panel.run();
        return QTest::qWaitFor([&] { return !ready.isEmpty() || !failed.isEmpty(); }, 20000) && failed.isEmpty();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("kinetoscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_querypanel"));
        QSettings().clear();
        m_trace = test::loadFixture("train_baseline");
    }

    // Run on the empty editor runs the example it shows (slices by total time), not "no SQL".
    void runOnAnEmptyEditorRunsTheExample()
    {
        TimelineWidget timeline;
        timeline.setTrace(m_trace);
        QueryPanel panel(&timeline);
        QVERIFY(runAndWait(panel, QString()));
        QCOMPARE(panel.editor()->toPlainText(), panel.editor()->placeholderText());
        QCOMPARE(panel.model()->columns().size(), 3);
        QCOMPARE(panel.model()->columns().at(0), QStringLiteral("name"));
        QVERIFY(panel.model()->rowCount() > 10);
    }

    void pagesOfRowsEqualTheModel()
    {
        TimelineWidget timeline;
        timeline.setTrace(m_trace);
        QueryPanel panel(&timeline);
        panel.setPageSize(100);
        QVERIFY(runAndWait(panel, QStringLiteral("SELECT id, name, dur FROM slice ORDER BY id")));
        QueryResultModel* model = panel.model();
        QCOMPARE(model->columns(), (QStringList{QStringLiteral("id"), QStringLiteral("name"), QStringLiteral("dur")}));
        QCOMPARE(model->rowCount(), 100);
        QVERIFY(model->canFetchMore({}));
        QSignalSpy ready(&panel, &QueryPanel::pageReady);
        model->fetchMore({});
        QVERIFY(!model->canFetchMore({})); // one page at a time
        QVERIFY(ready.wait(20000));
        QCOMPARE(model->rowCount(), 200);
        for (const int row : {0, 99, 100, 199}) {
            QCOMPARE(model->value(row, 0).toLongLong(), qlonglong(row));
            QCOMPARE(model->value(row, 1).toString().toStdString(),
                     std::string(m_trace->str(m_trace->slices().name[SliceId(row)])));
            QCOMPARE(model->value(row, 2).toLongLong(), qlonglong(m_trace->slices().duration[SliceId(row)]));
        }
        QVERIFY(runAndWait(panel, QStringLiteral("SELECT count(*) FROM slice")));
        QCOMPARE(model->rowCount(), 1);
        QCOMPARE(model->value(0, 0).toLongLong(), qlonglong(m_trace->slices().size()));
        QVERIFY(!model->canFetchMore({}));
        QCOMPARE(panel.statusText(), tr("%n row(s)", nullptr, 1));
    }

    void rowWithTsAndTrackSelectsTheSlice()
    {
        TimelineWidget timeline;
        timeline.resize(1200, 600);
        timeline.setTrace(m_trace);
        QueryPanel panel(&timeline);
        SliceId kernel = kNoSlice;
        for (SliceId s = 0; s < m_trace->slices().size() && kernel == kNoSlice; ++s) {
            if (m_trace->classOf(s) == SliceClass::Kernel && s > 1000)
                kernel = s;
        }
        QVERIFY(kernel != kNoSlice);
        QVERIFY(runAndWait(panel, QStringLiteral("SELECT name, ts, track FROM kernel WHERE id = %1").arg(kernel)));
        QCOMPARE(panel.model()->rowCount(), 1);
        panel.view()->setCurrentIndex(panel.model()->index(0, 0));
        QCOMPARE(timeline.selectedSlice(), kernel);
    }

    void badSqlSaysWhere()
    {
        TimelineWidget timeline;
        timeline.setTrace(m_trace);
        QueryPanel panel(&timeline);
        QSignalSpy failed(&panel, &QueryPanel::queryFailed);
        QVERIFY(!runAndWait(panel, QStringLiteral("SELECT * FORM slice")));
        QCOMPARE(failed.size(), 1);
        QVERIFY(failed[0][0].toString().contains(QStringLiteral("near \"FORM\": syntax error (at offset 9)")));
        QVERIFY(panel.statusText().contains(QStringLiteral("syntax error")));
        QCOMPARE(panel.model()->rowCount(), 0);
    }

    void stopInterruptsALongQuery()
    {
        TimelineWidget timeline;
        timeline.setTrace(m_trace);
        QueryPanel panel(&timeline);
        panel.editor()->setPlainText(QStringLiteral("SELECT count(*) FROM slice a, slice b, slice c"));
        panel.run();
        QTest::qWait(200);
        panel.stop();
        QCOMPARE(panel.statusText(), tr("Stopped."));
        QVERIFY(runAndWait(panel, QStringLiteral("SELECT count(*) FROM kernel")));
        QVERIFY(panel.model()->value(0, 0).toLongLong() > 0);
    }

    void savedQueriesPersist()
    {
        QueryPanel panel(nullptr);
        panel.editor()->setPlainText(QStringLiteral("SELECT * FROM kernel"));
        panel.saveQuery(QStringLiteral("kernels"));
        panel.editor()->setPlainText(QStringLiteral("SELECT * FROM op"));
        panel.saveQuery(QStringLiteral("ops"));
        QueryPanel other(nullptr);
        QCOMPARE(other.savedQueries()->count(), 2);
        QCOMPARE(other.savedQueries()->itemText(0), QStringLiteral("kernels"));
        other.savedQueries()->setCurrentIndex(0);
        Q_EMIT other.savedQueries()->activated(0);
        QCOMPARE(other.editor()->toPlainText(), QStringLiteral("SELECT * FROM kernel"));
        other.deleteSavedQuery(QStringLiteral("kernels"));
        QCOMPARE(QueryPanel(nullptr).savedQueries()->count(), 1);
        QCOMPARE(QSettings().value(QStringLiteral("query/saved")).toMap().value(QStringLiteral("ops")).toString(),
                 QStringLiteral("SELECT * FROM op"));
    }
};

QTEST_MAIN(TestQueryPanel)
#include "tst_querypanel.moc"
