// Steps without ProfilerStep#N through the CLI (issue 35): steps and steps_source on gpu,
// insights, diff and ranks; --steps NAME|REGEX on each command; a bad regex is a usage error.
#include "clirun.h"
#include "stepvariants.h"
#include "testfiles.h"
#include "testtext.h"

#include <QTest>

#include <cmath>

class TstStepsOption : public QObject {
    Q_OBJECT
private:
    kstest::TempDir m_dir;
    std::string m_labels, m_bare, m_baseline;

    static int run(const std::vector<std::string>& args, std::string* out = nullptr, std::string* err = nullptr)
    {
        return kstest::runCli(args, out, err);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_labels = m_dir.filePath("labels.pt.trace.json");
        m_bare = m_dir.filePath("bare.pt.trace.json");
        m_baseline = std::string(KS_TEST_DATA "/train_baseline.pt.trace.json.gz");
        kstest::writeJson(kstest::baselineWithLabels("step"), m_labels);
        // No ProfilerStep and no Optimizer.step: only the user's choice finds steps.
        kstest::writeJson(kstest::baselineWithSteps([](long long) { return std::string(); }, true), m_bare);
    }

    void gpuSaysWhereStepsCameFrom()
    {
        const auto j = kstest::runCliJson({"gpu", "--json", m_labels});
        QCOMPARE(j["steps"].get<int>(), 3);
        QCOMPARE(j["steps_source"].get<std::string>(), std::string("labels:step<N>"));
        QCOMPARE(j["step_breakdown"]["steps"].size(), std::size_t(3));
        const auto reference = kstest::runCliJson({"gpu", "--json", m_baseline});
        QCOMPARE(reference["steps_source"].get<std::string>(), std::string("ProfilerStep"));
        QCOMPARE(j["step_breakdown"]["average"]["total_us"].get<double>(),
                 reference["step_breakdown"]["average"]["total_us"].get<double>());
        std::string out;
        QCOMPARE(run({"gpu", m_labels}, &out), 0);
        QVERIFY2(kstest::contains(out, "3 step(s), steps from labels:step<N>"), out.c_str());
    }

    void insightsPerLabelStep()
    {
        const auto j = kstest::runCliJson({"insights", "--json", m_labels});
        QCOMPARE(j["steps"].get<int>(), 3);
        QCOMPARE(j["steps_source"].get<std::string>(), std::string("labels:step<N>"));
        const auto reference = kstest::runCliJson({"insights", "--json", m_baseline});
        QCOMPARE(j["traces"][0]["mean_step_us"].get<double>(), reference["traces"][0]["mean_step_us"].get<double>());
        QCOMPARE(j["insights"].size(), reference["insights"].size());
        for (std::size_t i = 0; i < j["insights"].size(); ++i)
            QCOMPARE(j["insights"][i]["time_us"].get<double>(), reference["insights"][i]["time_us"].get<double>());
        std::string out;
        QCOMPARE(run({"insights", m_labels}, &out), 0);
        QVERIFY2(out.starts_with("3 step(s) from labels:step<N>"), out.c_str());
    }

    void diffOverLabelSteps()
    {
        const auto j = kstest::runCliJson({"diff", "--json", m_labels, m_baseline});
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
        const std::string regex = std::string(R"(Optimizer\.zero_grad#.*)");
        const auto none = kstest::runCliJson({"gpu", "--json", m_bare});
        QCOMPARE(none["steps"].get<int>(), 0);
        QCOMPARE(none["steps_source"].get<std::string>(), std::string("none"));
        const auto gpu = kstest::runCliJson({"gpu", "--json", "--steps", regex, m_bare});
        QCOMPARE(gpu["steps"].get<int>(), 3);
        QCOMPARE(gpu["steps_source"].get<std::string>(), "user:" + regex);
        const auto insights = kstest::runCliJson({"insights", "--json", "--steps=MLP", m_bare});
        QCOMPARE(insights["steps"].get<int>(), 6);
        QCOMPARE(insights["steps_source"].get<std::string>(), std::string("user:MLP"));
        const auto ranks = kstest::runCliJson({"ranks", "--json", "--steps", regex, m_bare});
        QCOMPARE(ranks["steps_source"].get<std::string>(), "user:" + regex);
        QCOMPARE(ranks["ranks"][0]["steps"].get<int>(), 3);
        const auto diff = kstest::runCliJson({"diff", "--json", "--steps", regex, m_bare, m_labels});
        QCOMPARE(diff["base"]["steps"].get<int>(), 3);
        QCOMPARE(diff["new"]["steps_source"].get<std::string>(), "user:" + regex); // before labels
        std::string out;
        QCOMPARE(run({"ops", "--steps", regex, m_bare}, &out), 0);
        QVERIFY2(kstest::contains(out, "Steps: 3 from user:"), out.c_str());
    }

    void badRegexIsAUsageError()
    {
        for (const char* command : {"gpu", "insights", "ops", "ranks"}) {
            std::string out, err;
            QCOMPARE(run({std::string(command), "--steps", "step(", m_labels}, &out, &err), 2);
            QVERIFY2(kstest::contains(err, "--steps") && kstest::contains(err, "regular expression"), err.c_str());
        }
        std::string err;
        QCOMPARE(run({"diff", "--steps=[a-", m_labels, m_baseline}, nullptr, &err), 2);
        QVERIFY2(kstest::contains(err, "--steps"), err.c_str());
    }
};

QTEST_MAIN(TstStepsOption)
#include "tst_stepsoption.moc"
