// kinetoscope-cli critical-path: the JSON contract, --step, --what-if, several ranks, bad options.
#include "clirun.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <cmath>

class TestCriticalPathCommand : public QObject {
    Q_OBJECT
private:
    static QString fixture(const char* name)
    {
        return QStringLiteral(KS_TEST_DATA "/%1.pt.trace.json.gz").arg(QLatin1String(name));
    }

    static int run(const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr)
    {
        return kstest::runCli(QStringList{QStringLiteral("critical-path")} + args, out, err);
    }

    static nlohmann::json runJson(const QStringList& args)
    {
        QByteArray out;
        if (run(QStringList{QStringLiteral("--json")} + args, &out) != 0)
            qFatal("critical-path failed");
        return nlohmann::json::parse(out.toStdString());
    }

    // Breakdown and segments add up to the length, the length to the step's span.
    static void checkStep(const nlohmann::json& step)
    {
        const double length = step["length_us"].get<double>();
        QVERIFY(std::fabs(length - (step["end_us"].get<double>() - step["start_us"].get<double>())) < 1e-3);
        double breakdown = 0, segments = 0;
        for (const char* key :
             {"cpu_op", "launch", "kernel", "memcpy", "memset", "sync_wait", "gpu_idle", "collective_wait", "other"})
            breakdown += step["breakdown"][key].get<double>();
        for (const auto& s : step["segments"]) {
            for (const char* key : {"kind", "name", "start_us", "dur_us", "track"})
                QVERIFY(s.contains(key));
            segments += s["dur_us"].get<double>();
        }
        QVERIFY(std::fabs(breakdown - length) < 1e-3);
        QVERIFY(std::fabs(segments - length) < 1e-3);
    }

private Q_SLOTS:
    void jsonContractOnTrainBaseline()
    {
        const auto j = runJson({fixture("train_baseline")});
        QCOMPARE(j["steps"].size(), std::size_t(3));
        const double spans[] = {13023.487, 11966.639, 11893.25}; // the ProfilerStep ranges (host-bound steps)
        for (std::size_t i = 0; i < 3; ++i) {
            const auto& step = j["steps"][i];
            QCOMPARE(step["step"].get<int>(), int(3 + i)); // ProfilerStep#3..5
            checkStep(step);
            QVERIFY(std::fabs(step["length_us"].get<double>() - spans[i]) < 1e-3);
            QVERIFY(!step.contains("what_if_length_us"));
        }
    }

    void stepAndWhatIfs()
    {
        const auto same = runJson({QStringLiteral("--step"), QStringLiteral("4"), QStringLiteral("--what-if"),
                                   QStringLiteral("kernel:.=1"), QStringLiteral("--what-if"), QStringLiteral("op:.=1"),
                                   fixture("train_baseline")});
        QCOMPARE(same["steps"].size(), std::size_t(1));
        QCOMPARE(same["steps"][0]["step"].get<int>(), 4);
        QCOMPARE(same["steps"][0]["what_if_length_us"].get<double>(), same["steps"][0]["length_us"].get<double>());
        // Without the pageable copy's staging and its GPU time the step is shorter by about them.
        const auto pinned = runJson({QStringLiteral("--step=4"), QStringLiteral("--what-if=kernel:Pageable=0"),
                                     QStringLiteral("--what-if=op:^cudaMemcpyAsync$=0"), fixture("train_baseline")});
        const double saved =
            pinned["steps"][0]["length_us"].get<double>() - pinned["steps"][0]["what_if_length_us"].get<double>();
        QVERIFY2(saved > 800 && saved < 1100, std::to_string(saved).c_str());
    }

    // The DDP pair: rank 0's steps with rank 1's joined through the matched collectives.
    void twoRanksAddUp()
    {
        const auto j = runJson({fixture("ddp_rank0"), fixture("ddp_rank1")});
        QVERIFY(!j["steps"].empty());
        for (const auto& step : j["steps"])
            checkStep(step);
    }

    void rejectsBadOptions()
    {
        QByteArray err;
        QCOMPARE(run({QStringLiteral("--what-if"), QStringLiteral("warp:x=1"), fixture("launchbound")}, nullptr, &err),
                 2);
        QVERIFY(err.contains("--what-if"));
        QCOMPARE(run({QStringLiteral("--what-if"), QStringLiteral("kernel:x=-1"), fixture("launchbound")}), 2);
        QCOMPARE(run({QStringLiteral("--step"), QStringLiteral("x"), fixture("launchbound")}), 2);
        QCOMPARE(run({QStringLiteral("--step"), QStringLiteral("99"), fixture("launchbound")}, nullptr, &err), 1);
        QVERIFY(err.contains("no step 99"));
    }
};

QTEST_GUILESS_MAIN(TestCriticalPathCommand)
#include "tst_criticalpathcommand.moc"
