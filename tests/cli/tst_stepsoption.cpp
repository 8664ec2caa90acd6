// Steps without ProfilerStep#N through the CLI (issue 35): steps and steps_source on gpu,
// insights, diff and ranks; --steps NAME|REGEX on each command; a bad regex is a usage error.
#include "clirun.h"
#include "stepvariants.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>

class TstStepsOption : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_labels, m_bare, m_baseline;

    static int run(const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr)
    {
        return kstest::runCli(args, out, err);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_labels = m_dir.filePath(QStringLiteral("labels.pt.trace.json"));
        m_bare = m_dir.filePath(QStringLiteral("bare.pt.trace.json"));
        m_baseline = QStringLiteral(KS_TEST_DATA "/train_baseline.pt.trace.json.gz");
        kstest::writeJson(kstest::baselineWithLabels("step"), m_labels.toStdString());
        // No ProfilerStep and no Optimizer.step: only the user's choice finds steps.
        kstest::writeJson(kstest::baselineWithSteps([](long long) { return std::string(); }, true),
                          m_bare.toStdString());
    }

    void gpuSaysWhereStepsCameFrom()
    {
        const auto j = kstest::runCliJson({QStringLiteral("gpu"), QStringLiteral("--json"), m_labels});
        QCOMPARE(j["steps"].get<int>(), 3);
        QCOMPARE(j["steps_source"].get<std::string>(), std::string("labels:step<N>"));
        QCOMPARE(j["step_breakdown"]["steps"].size(), std::size_t(3));
        const auto reference = kstest::runCliJson({QStringLiteral("gpu"), QStringLiteral("--json"), m_baseline});
        QCOMPARE(reference["steps_source"].get<std::string>(), std::string("ProfilerStep"));
        QCOMPARE(j["step_breakdown"]["average"]["total_us"].get<double>(),
                 reference["step_breakdown"]["average"]["total_us"].get<double>());
        QByteArray out;
        QCOMPARE(run({QStringLiteral("gpu"), m_labels}, &out), 0);
        QVERIFY2(out.contains("3 step(s), steps from labels:step<N>"), out.constData());
    }

    void insightsPerLabelStep()
    {
        const auto j = kstest::runCliJson({QStringLiteral("insights"), QStringLiteral("--json"), m_labels});
        QCOMPARE(j["steps"].get<int>(), 3);
        QCOMPARE(j["steps_source"].get<std::string>(), std::string("labels:step<N>"));
        const auto reference = kstest::runCliJson({QStringLiteral("insights"), QStringLiteral("--json"), m_baseline});
        QCOMPARE(j["traces"][0]["mean_step_us"].get<double>(), reference["traces"][0]["mean_step_us"].get<double>());
        QCOMPARE(j["insights"].size(), reference["insights"].size());
        for (std::size_t i = 0; i < j["insights"].size(); ++i)
            QCOMPARE(j["insights"][i]["time_us"].get<double>(), reference["insights"][i]["time_us"].get<double>());
        QByteArray out;
        QCOMPARE(run({QStringLiteral("insights"), m_labels}, &out), 0);
        QVERIFY2(out.startsWith("3 step(s) from labels:step<N>"), out.constData());
    }

    void diffOverLabelSteps()
    {
        const auto j = kstest::runCliJson({QStringLiteral("diff"), QStringLiteral("--json"), m_labels, m_baseline});
        QCOMPARE(j["base"]["steps"].get<int>(), 3);
        QCOMPARE(j["base"]["steps_source"].get<std::string>(), std::string("labels:step<N>"));
        QCOMPARE(j["steps"]["base"].get<int>(), 3);
        QCOMPARE(j["steps_source"]["new"].get<std::string>(), std::string("ProfilerStep"));
        double meanUs = 0;
        for (const auto& [a, b] : kstest::baselineStepRanges())
            meanUs += (b - a) / 3.0;
        QVERIFY(std::fabs(j["base"]["step_time_us"].get<double>() - meanUs) < 0.002);
    }

    void stepsOptionPicksRanges()
    {
        const QString regex = QStringLiteral(R"(Optimizer\.zero_grad#.*)");
        const auto none = kstest::runCliJson({QStringLiteral("gpu"), QStringLiteral("--json"), m_bare});
        QCOMPARE(none["steps"].get<int>(), 0);
        QCOMPARE(none["steps_source"].get<std::string>(), std::string("none"));
        const auto gpu = kstest::runCliJson(
            {QStringLiteral("gpu"), QStringLiteral("--json"), QStringLiteral("--steps"), regex, m_bare});
        QCOMPARE(gpu["steps"].get<int>(), 3);
        QCOMPARE(gpu["steps_source"].get<std::string>(), "user:" + regex.toStdString());
        const auto insights = kstest::runCliJson(
            {QStringLiteral("insights"), QStringLiteral("--json"), QStringLiteral("--steps=MLP"), m_bare});
        QCOMPARE(insights["steps"].get<int>(), 6);
        QCOMPARE(insights["steps_source"].get<std::string>(), std::string("user:MLP"));
        const auto ranks = kstest::runCliJson(
            {QStringLiteral("ranks"), QStringLiteral("--json"), QStringLiteral("--steps"), regex, m_bare});
        QCOMPARE(ranks["steps_source"].get<std::string>(), "user:" + regex.toStdString());
        QCOMPARE(ranks["ranks"][0]["steps"].get<int>(), 3);
        const auto diff = kstest::runCliJson(
            {QStringLiteral("diff"), QStringLiteral("--json"), QStringLiteral("--steps"), regex, m_bare, m_labels});
        QCOMPARE(diff["base"]["steps"].get<int>(), 3);
        QCOMPARE(diff["new"]["steps_source"].get<std::string>(), "user:" + regex.toStdString()); // before labels
        QByteArray out;
        QCOMPARE(run({QStringLiteral("ops"), QStringLiteral("--steps"), regex, m_bare}, &out), 0);
        QVERIFY2(out.contains("Steps: 3 from user:"), out.constData());
    }

    void badRegexIsAUsageError()
    {
        for (const char* command : {"gpu", "insights", "ops", "ranks"}) {
            QByteArray out, err;
            QCOMPARE(
                run({QLatin1String(command), QStringLiteral("--steps"), QStringLiteral("step("), m_labels}, &out, &err),
                2);
            QVERIFY2(err.contains("--steps") && err.contains("regular expression"), err.constData());
        }
        QByteArray err;
        QCOMPARE(run({QStringLiteral("diff"), QStringLiteral("--steps=[a-"), m_labels, m_baseline}, nullptr, &err), 2);
        QVERIFY2(err.contains("--steps"), err.constData());
    }
};

QTEST_MAIN(TstStepsOption)
#include "tst_stepsoption.moc"
