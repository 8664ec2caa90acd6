// Steps in the viewer (issue 35): a step0/step1/step2 trace shows its 3 steps and their
// source in the status bar and the GPU Summary; "Use as Steps" on a range of a trace without
// steps makes them the steps of every analysis, and the choice comes back with the file.
#include "app/mainwindow.h"
#include "core/analysis/insights.h"
#include "core/facts/tracefacts.h"
#include "core/gpu/gpureport.h"
#include "core/loading/loader.h"
#include "stepvariants.h"
#include "widgets/gpuoverlaypanel.h"
#include "widgets/gpusummarypanel.h"
#include "widgets/gpuviews.h"
#include "widgets/insightsmodel.h"
#include "widgets/insightspanel.h"
#include "widgets/timelinewidget.h"

#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;

class TstStepChoices : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    static QLabel* stepsLabel(MainWindow& window) { return window.findChild<QLabel*>(QStringLiteral("stepsLabel")); }

    // The GPU reports of a window, as they come.
    struct Reports {
        std::vector<std::shared_ptr<const gpu::GpuReport>> got;
        explicit Reports(MainWindow& window)
        {
            QObject::connect(window.findChild<GpuViews*>(), &GpuViews::reportReady, &window,
                             [this](std::shared_ptr<const gpu::GpuReport> r) { got.push_back(std::move(r)); });
        }
        std::shared_ptr<const gpu::GpuReport> next()
        {
            if (!QTest::qWaitFor([&] { return !got.empty() && got.back(); }, 60000))
                return nullptr;
            auto r = got.back();
            got.clear();
            return r;
        }
    };

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QVERIFY(m_dir.isValid());
    }

    void labelStepsShowTheirSource()
    {
        const QString path = m_dir.filePath(QStringLiteral("labels.pt.trace.json"));
        kstest::writeJson(kstest::baselineWithLabels("step"), path.toStdString());
        MainWindow window;
        window.show();
        Reports reports(window);
        window.openFiles({path});
        auto report = reports.next();
        QVERIFY(report && report->facts);
        QCOMPARE(report->facts->windows.sourceName, std::string("labels:step<N>"));
        QCOMPARE(report->breakdown.steps.size(), std::size_t(3));
        QCOMPARE(stepsLabel(window)->text(), QStringLiteral("3 step(s) · labels:step<N>"));
        auto* summary = window.findChild<GpuSummaryPanel*>();
        QVERIFY(summary);
        const auto labels = summary->findChildren<QLabel*>();
        QVERIFY(std::any_of(labels.begin(), labels.end(), [](const QLabel* l) {
            return l->text().contains(QStringLiteral("3 step(s)"))
                && l->text().contains(QStringLiteral("labels:step<N>"));
        }));
        // Insights per label step are train_baseline's per ProfilerStep: same titles, same numbers.
        const auto baseline = loadTraceFile(KS_TEST_DATA "/train_baseline.pt.trace.json.gz").trace;
        QStringList expected;
        for (const analysis::Insight& insight : analysis::findInsights(*facts::sharedTraceFacts(baseline)))
            expected << QString::fromStdString(insight.title);
        QVERIFY(std::any_of(expected.begin(), expected.end(),
                            [](const QString& title) { return title.contains(QStringLiteral("per step")); }));
        auto* insights = window.findChild<InsightsPanel*>();
        QStringList shown;
        QTRY_VERIFY_WITH_TIMEOUT(insights->model()->rowCount() == int(expected.size()), 60000);
        for (int row = 0; row < insights->model()->rowCount(); ++row)
            shown << QString::fromStdString(insights->model()->insightAt(row)->title);
        shown.sort();
        expected.sort();
        QCOMPARE(shown, expected);
    }

    void chosenStepsAreRememberedPerFile()
    {
        const QString path = m_dir.filePath(QStringLiteral("bare.pt.trace.json"));
        kstest::writeJson(kstest::baselineWithSteps([](long long) { return std::string(); }, true), path.toStdString());
        {
            MainWindow window;
            window.show();
            Reports reports(window);
            window.openFiles({path});
            auto report = reports.next();
            QVERIFY(report);
            QCOMPARE(report->facts->windows.sourceName, std::string("none"));
            QCOMPARE(stepsLabel(window)->text(), QStringLiteral("No steps"));
            // What "Use “MLP” as Steps" on an MLP range does.
            window.timeline()->setStepRules({"MLP"});
            report = reports.next();
            QVERIFY(report);
            QCOMPARE(report->facts->windows.sourceName, std::string("user:MLP"));
            QCOMPARE(report->breakdown.steps.size(), std::size_t(6));
            QCOMPARE(stepsLabel(window)->text(), QStringLiteral("6 step(s) · user:MLP"));
        }
        MainWindow again;
        again.show();
        Reports reports(again);
        again.openFiles({path});
        const auto report = reports.next();
        QVERIFY(report);
        QCOMPARE(again.timeline()->stepRules().userPattern, std::string("MLP"));
        QCOMPARE(report->facts->windows.sourceName, std::string("user:MLP"));
        // Find Steps Automatically forgets the choice.
        again.timeline()->setStepRules({});
        QVERIFY(reports.next());
        MainWindow third;
        third.show();
        Reports thirdReports(third);
        third.openFiles({path});
        QVERIFY(thirdReports.next());
        QCOMPARE(third.timeline()->stepRules().userPattern, std::string());
    }
};

QTEST_MAIN(TstStepChoices)
#include "tst_stepchoices.moc"
