// Steps in a workspace (issue 35): each member of a comparison or of the ranks of a run counts
// per step by its own steps, the user's choice for its file included ("Use as Steps" on one of
// its ranges, remembered with the file): the Diff and Ranks docks, its GPU Summary and Insights
// and the status bar; selecting a step's range on one rank outlines the same step on the
// others whatever its steps are (step0 labels, Optimizer.step).
#include "app/mainwindow.h"
#include "app/stepchoices.h"
#include "app/workspacecontroller.h"
#include "core/analysis/insights.h"
#include "core/facts/tracefacts.h"
#include "core/loading/loader.h"
#include "stepvariants.h"
#include "widgets/diffpanel.h"
#include "widgets/gpuoverlaypanel.h"
#include "widgets/gpusummarypanel.h"
#include "widgets/gpuviews.h"
#include "widgets/insightsmodel.h"
#include "widgets/insightspanel.h"
#include "widgets/rankspanel.h"
#include "widgets/timelinewidget.h"
#include "windowtesting.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace ks;

namespace {

QString fixture(const char* name)
{
    return QStringLiteral(KS_TEST_DATA "/%1.pt.trace.json.gz").arg(QLatin1String(name));
}

// The mean duration of the outermost host ranges named `name` (nested ones count once), from
// the trace's own slices: what a step's time is when those ranges are the steps.
double meanOuterRangeNs(const Trace& trace, std::string_view name, std::size_t* count)
{
    std::vector<std::pair<TimeNs, TimeNs>> ranges;
    for (SliceId s = 0; s < trace.slices().size(); ++s) {
        if (trace.str(trace.slices().name[s]) == name
            && !trace.processes()[trace.tracks()[trace.trackOf(s)].process].isDevice)
            ranges.emplace_back(trace.slices().start[s], trace.slices().end(s));
    }
    std::sort(ranges.begin(), ranges.end());
    double sum = 0;
    *count = 0;
    TimeNs coveredTo = -1;
    for (const auto& [start, end] : ranges) {
        if (start < coveredTo)
            continue; // inside the previous one
        sum += double(end - start);
        ++*count;
        coveredTo = end;
    }
    return *count ? sum / double(*count) : 0.0;
}

QStringList insightTitles(const std::vector<analysis::Insight>& insights)
{
    QStringList titles;
    for (const analysis::Insight& insight : insights)
        titles << QString::fromStdString(insight.title);
    titles.sort();
    return titles;
}

QStringList shownInsightTitles(const InsightsPanel& panel)
{
    QStringList titles;
    for (int row = 0; row < panel.model()->rowCount(); ++row)
        titles << QString::fromStdString(panel.model()->insightAt(row)->title);
    titles.sort();
    return titles;
}

// A DDP rank's ProfilerStep#N ranges (host and GPU copies) renamed to stepN, or dropped.
QString ddpRankWithSteps(const char* name, bool asLabels, const QTemporaryDir& dir)
{
    auto doc = nlohmann::json::parse(kstest::gunzipFile(fixture(name).toStdString()));
    nlohmann::json kept = nlohmann::json::array();
    for (auto& e : doc["traceEvents"]) {
        const std::string event = e.value("name", "");
        if (e.value("ph", "") == "X" && event.starts_with("ProfilerStep#")) {
            if (!asLabels)
                continue;
            e["name"] = "step" + event.substr(13);
        }
        kept.push_back(std::move(e));
    }
    doc["traceEvents"] = std::move(kept);
    const QString path = dir.filePath(QStringLiteral("%1.pt.trace.json").arg(QLatin1String(name)));
    kstest::writeJson(doc, path.toStdString());
    return path;
}

} // namespace

class TestWorkspaceSteps : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_bare; // train_baseline without ProfilerStep nor Optimizer.step: no steps of its own
    QString m_labels; // train_baseline with step0, step1, step2

    // "Use “MLP” as Steps" on the bare trace opened alone, as a user does it once.
    void chooseMlpStepsForBare()
    {
        MainWindow window;
        window.show();
        QVERIFY(kstest::openAndWait(window, m_bare));
        window.timeline()->setStepRules({"MLP"});
        QCOMPARE(StepChoices::remembered(m_bare), QStringLiteral("MLP"));
    }

private Q_SLOTS:
    void initTestCase()
    {
        kstest::useTestSettings();
        QVERIFY(m_dir.isValid());
        m_bare = m_dir.filePath(QStringLiteral("bare.pt.trace.json"));
        kstest::writeJson(kstest::baselineWithSteps([](long long) { return std::string(); }, true),
                          m_bare.toStdString());
        m_labels = m_dir.filePath(QStringLiteral("labels.pt.trace.json"));
        kstest::writeJson(kstest::baselineWithLabels("step"), m_labels.toStdString());
    }

    void init() { QSettings().clear(); }

    // --diff BASE NEW where BASE has no steps until the user picks them on its timeline group:
    // the Diff dock then counts BASE per MLP range (6, its mean range time) and NEW per label
    // step (3); BASE's GPU Summary, Insights and the status bar follow; the choice is kept.
    void comparisonUsesEachSidesChosenSteps()
    {
        const std::shared_ptr<const Trace> bare = loadTraceFile(m_bare.toStdString()).trace;
        std::size_t mlpRanges = 0;
        const double mlpMean = meanOuterRangeNs(*bare, "MLP", &mlpRanges);
        QCOMPARE(mlpRanges, std::size_t(6));

        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openComparison(m_bare, m_labels);
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 60000);
        auto before = window.diffPanel()->report();
        QCOMPARE(before->base.steps, std::size_t(0));
        QCOMPARE(before->base.stepsSource, std::string("none"));
        QCOMPARE(before->neu.steps, std::size_t(3));
        QCOMPARE(before->neu.stepsSource, std::string("labels:step<N>"));

        // What "Use “MLP” as Steps" on an MLP range of BASE's group does.
        ready.clear();
        window.timeline()->setStepRules(0, {"MLP"});
        QCOMPARE(window.timeline()->stepRules(1).userPattern, std::string()); // NEW keeps its own
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 60000);
        const auto after = window.diffPanel()->report();
        QCOMPARE(after->base.steps, std::size_t(6));
        QCOMPARE(after->base.stepsSource, std::string("user:MLP"));
        QCOMPARE(after->base.stepTimeNs, mlpMean);
        QCOMPARE(after->neu.steps, std::size_t(3));
        QCOMPARE(after->neu.stepsSource, std::string("labels:step<N>"));
        QCOMPARE(window.workspace()->workspace().members()[0].steps.size(), std::size_t(6));
        QCOMPARE(StepChoices::remembered(m_bare), QStringLiteral("MLP"));
        QCOMPARE(StepChoices::remembered(m_labels), QString());

        // BASE's GPU report, hence its tracks, GPU Summary and the status bar.
        auto* gpu = window.findChild<GpuViews*>();
        QTRY_VERIFY_WITH_TIMEOUT(gpu->reportOf(0) && gpu->reportOf(0)->facts->windows.sourceName == "user:MLP", 60000);
        QCOMPARE(gpu->reportOf(0)->breakdown.steps.size(), std::size_t(6));
        QTRY_COMPARE_WITH_TIMEOUT(window.findChild<QLabel*>(QStringLiteral("stepsLabel"))->text(),
                                  QStringLiteral("6 step(s) · user:MLP"), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(gpu->reportOf(1), 60000);
        QCOMPARE(gpu->reportOf(1)->facts->windows.sourceName, std::string("labels:step<N>"));
        QCOMPARE(gpu->reportOf(1)->breakdown.steps.size(), std::size_t(3));

        // BASE's findings are those of the bare trace over its MLP steps, not over none.
        const QStringList expected =
            insightTitles(analysis::findInsights(*facts::sharedTraceFacts(bare, facts::StepRules{"MLP"})));
        QVERIFY(expected != insightTitles(analysis::findInsights(*facts::sharedTraceFacts(bare))));
        auto* insights = window.findChild<InsightsPanel*>();
        QTRY_COMPARE_WITH_TIMEOUT(shownInsightTitles(*insights), expected, 60000);
    }

    // The choice comes back when the file opens among the ranks of a run: its member counts
    // per MLP range in the Ranks dock and its GPU report; the other rank keeps its label steps.
    void ranksReopenWithTheirFilesChosenSteps()
    {
        chooseMlpStepsForBare();
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openFiles({m_bare, m_labels});
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 60000);
        const auto& members = window.workspace()->workspace().members();
        QCOMPARE(members.size(), std::size_t(2));
        const std::uint32_t bareMember = members[0].identity.file == m_bare.toStdString() ? 0 : 1;
        const std::uint32_t labelMember = 1 - bareMember;
        QCOMPARE(window.timeline()->stepRules(bareMember).userPattern, std::string("MLP"));
        QCOMPARE(window.timeline()->stepRules(labelMember).userPattern, std::string());
        QCOMPARE(members[bareMember].stepsSource, std::string("user:MLP"));
        QCOMPARE(members[labelMember].stepsSource, std::string("labels:step<N>"));

        const auto report = window.ranksPanel()->report();
        QVERIFY(report);
        for (const analysis::RankSummary& rank : report->ranks)
            QCOMPARE(rank.steps, rank.member == bareMember ? std::size_t(6) : std::size_t(3));
        auto* gpu = window.findChild<GpuViews*>();
        QTRY_VERIFY_WITH_TIMEOUT(gpu->reportOf(bareMember), 60000);
        QCOMPARE(gpu->reportOf(bareMember)->facts->windows.sourceName, std::string("user:MLP"));
        QCOMPARE(gpu->reportOf(bareMember)->breakdown.steps.size(), std::size_t(6));
    }

    // Selecting a step's range on rank 1 outlines the same step on rank 0, for steps from
    // step<N> labels and from Optimizer.step (no ProfilerStep in either).
    void sameStepOutlinedWhateverTheSteps_data()
    {
        QTest::addColumn<bool>("asLabels");
        QTest::newRow("step<N> labels") << true;
        QTest::newRow("Optimizer.step") << false;
    }

    void sameStepOutlinedWhateverTheSteps()
    {
        QFETCH(bool, asLabels);
        QTemporaryDir dir;
        const QString rank0 = ddpRankWithSteps("ddp_rank0", asLabels, dir);
        const QString rank1 = ddpRankWithSteps("ddp_rank1", asLabels, dir);
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openFiles({rank0, rank1});
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 60000);
        const auto& members = window.workspace()->workspace().members();
        QCOMPARE(members.size(), std::size_t(2));
        for (const analysis::WorkspaceMember& member : members) {
            QCOMPARE(member.stepsSource, std::string(asLabels ? "labels:step<N>" : "Optimizer.step"));
            QCOMPARE(member.steps.size(), std::size_t(3));
        }
        // The second step of rank 1: step3 (ProfilerStep#3 renamed), or its 2nd optimizer step.
        const analysis::StepSpan& selected = members[1].steps[1];
        const Trace& trace1 = *members[1].trace;
        QCOMPARE(std::string(trace1.str(trace1.slices().name[selected.slice])),
                 std::string(asLabels ? "step3" : "Optimizer.step#AdamW.step"));
        TimelineWidget& timeline = *window.timeline();
        timeline.revealTraceSlice({1, selected.slice});
        const SliceId outlined = members[0].steps[1].slice;
        const Trace& trace0 = *members[0].trace;
        QCOMPARE(std::string(trace0.str(trace0.slices().name[outlined])),
                 std::string(trace1.str(trace1.slices().name[selected.slice])));
        QCOMPARE(timeline.markedSlices(0), std::vector<SliceId>{outlined});
        QVERIFY(timeline.markedSlices(1).empty());
        QVERIFY(!timeline.isProcessCollapsed(0, trace0.tracks()[trace0.trackOf(outlined)].process));
        // Another range (a kernel, not a step's) outlines nothing.
        SliceId kernel = 0;
        while (!trace1.processes()[trace1.tracks()[trace1.trackOf(kernel)].process].isDevice)
            ++kernel;
        timeline.revealTraceSlice({1, kernel});
        QVERIFY(timeline.markedSlices(0).empty());
    }
};

QTEST_MAIN(TestWorkspaceSteps)
#include "tst_workspacesteps.moc"
