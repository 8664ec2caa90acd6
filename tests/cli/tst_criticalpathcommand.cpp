// kinetoscope-cli critical-path: the JSON contract, --step, --what-if, several ranks, bad options.
#include "clirun.h"
#include "testtext.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <cmath>

class TestCriticalPathCommand : public QObject {
    Q_OBJECT
private:
    static std::string fixture(const char* name) { return std::string(KS_TEST_DATA "/") + name + ".pt.trace.json.gz"; }

    static int run(const std::vector<std::string>& args, std::string* out = nullptr, std::string* err = nullptr)
    {
        return kstest::runCli(kstest::concat({"critical-path"}, args), out, err);
    }

    static nlohmann::json runJson(const std::vector<std::string>& args)
    {
        std::string out;
        if (run(kstest::concat({"--json"}, args), &out) != 0)
            (std::fprintf(stderr, "critical-path failed\n"), std::abort());
        return nlohmann::json::parse(out);
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
        const auto same =
            runJson({"--step", "4", "--what-if", "kernel:.=1", "--what-if", "op:.=1", fixture("train_baseline")});
        QCOMPARE(same["steps"].size(), std::size_t(1));
        QCOMPARE(same["steps"][0]["step"].get<int>(), 4);
        QCOMPARE(same["steps"][0]["what_if_length_us"].get<double>(), same["steps"][0]["length_us"].get<double>());
        // Without the pageable copy's staging and its GPU time the step is shorter by about them.
        const auto pinned = runJson(
            {"--step=4", "--what-if=kernel:Pageable=0", "--what-if=op:^cudaMemcpyAsync$=0", fixture("train_baseline")});
        const double saved =
            pinned["steps"][0]["length_us"].get<double>() - pinned["steps"][0]["what_if_length_us"].get<double>();
        QVERIFY2(saved > 800 && saved < 1100, std::to_string(saved).c_str());
    }

    // The NCCL segments of a step's path on `trackPrefix`, and the time it spends on that rank.
    static std::vector<nlohmann::json> ncclSegments(const nlohmann::json& step, const std::string& trackPrefix)
    {
        std::vector<nlohmann::json> found;
        for (const auto& s : step["segments"])
            if (s.value("family", "") == "NCCL" && s["track"].get<std::string>().starts_with(trackPrefix))
                found.push_back(s);
        return found;
    }
    static double timeOn(const nlohmann::json& step, const std::string& trackPrefix)
    {
        double t = 0;
        for (const auto& s : step["segments"])
            if (s["track"].get<std::string>().starts_with(trackPrefix))
                t += s["dur_us"].get<double>();
        return t;
    }

    // The DDP pair: rank 0's steps with rank 1's joined through the matched collectives. Both
    // files carry the same baseTimeNanoseconds, so the axis is their own clock. Rank 0 arrives
    // last at the first three all-reduces (steps 2 and 3 stay on rank 0), rank 1 at the last
    // three: rank 0's step 4 ends on its stream 7, which waits for the last all-reduce, which
    // waits for rank 1's kernel (at 4516938348080.337 µs, rank 1's trace): the path runs through
    // rank 1's CPU and its launch, then rank 0's kernel from rank 1's arrival to its end
    // (4516938348168.647 µs in rank 0's trace: 88.311 µs).
    void twoRanksJoinedAtTheLastArrival()
    {
        const auto j = runJson({fixture("ddp_rank0"), fixture("ddp_rank1")});
        QCOMPARE(j["steps"].size(), std::size_t(3));
        for (const auto& step : j["steps"])
            checkStep(step);
        for (std::size_t i = 0; i < 2; ++i) {
            QCOMPARE(timeOn(j["steps"][i], "Rank 1"), 0.0);
            QVERIFY(ncclSegments(j["steps"][i], "Rank 1").empty());
        }
        const auto& step4 = j["steps"][2];
        QCOMPARE(step4["step"].get<int>(), 4);
        const auto nccl = ncclSegments(step4, "Rank 0");
        QCOMPARE(nccl.size(), std::size_t(1));
        QVERIFY(std::fabs(nccl[0]["start_us"].get<double>() - 4516938348080.337) < 1e-3);
        QVERIFY(std::fabs(nccl[0]["dur_us"].get<double>() - 88.311) < 2e-3);
        // Everything before it is rank 1's: its CPU, then the launch of its all-reduce.
        const auto& segments = step4["segments"];
        std::size_t at = 0;
        while (segments[at].value("family", "") != "NCCL")
            ++at;
        QCOMPARE(segments[at - 1]["track"].get<std::string>().rfind("Rank 1", 0), std::size_t(0));
        QCOMPARE(segments[at - 1]["kind"].get<std::string>(), std::string("launch"));
        QVERIFY(std::fabs(timeOn(step4, "Rank 1") - (4516938348080.337 - step4["start_us"].get<double>())) < 1e-3);
        // Rank 0 alone: its own kernel, no other rank.
        const auto alone = runJson({"--step=4", fixture("ddp_rank0")});
        QCOMPARE(timeOn(alone["steps"][0], "Rank 1"), 0.0);
        QCOMPARE(alone["steps"][0]["length_us"].get<double>(), step4["length_us"].get<double>());
    }

    // --rank 1: rank 1 waits 2.8 ms in cudaEventSynchronize ([4516938322230.467,
    // 4516938325039.585] µs, in its step 2 window) for the second all-reduce, where rank 0
    // arrived last (at 4516938324880.815 µs): the path goes through rank 0, then rank 1's
    // kernel from that arrival to its end (86.254 µs).
    void rankOneWaitsForRankZero()
    {
        const auto j = runJson({"--rank=1", "--step=2", fixture("ddp_rank0"), fixture("ddp_rank1")});
        QCOMPARE(j["steps"].size(), std::size_t(1));
        const auto& step = j["steps"][0];
        checkStep(step);
        QVERIFY(step["start_us"].get<double>() < 4516938322230.467);
        QVERIFY(step["end_us"].get<double>() > 4516938325039.585);
        const auto nccl = ncclSegments(step, "Rank 1");
        QVERIFY(!nccl.empty());
        QVERIFY(std::fabs(nccl[0]["start_us"].get<double>() - 4516938324880.815) < 1e-3);
        QVERIFY(std::fabs(nccl[0]["dur_us"].get<double>() - 86.254) < 2e-3);
        QVERIFY(timeOn(step, "Rank 0") > 2000); // rank 0's work up to its arrival
        std::string err;
        QCOMPARE(run({"--rank=5", fixture("ddp_rank0"), fixture("ddp_rank1")}, nullptr, &err), 1);
        QVERIFY(kstest::contains(err, "no file is rank 5"));
    }

    void rejectsBadOptions()
    {
        std::string err;
        QCOMPARE(run({"--what-if", "warp:x=1", fixture("launchbound")}, nullptr, &err), 2);
        QVERIFY(kstest::contains(err, "--what-if"));
        QCOMPARE(run({"--what-if", "kernel:x=-1", fixture("launchbound")}), 2);
        QCOMPARE(run({"--step", "x", fixture("launchbound")}), 2);
        QCOMPARE(run({"--step", "99", fixture("launchbound")}, nullptr, &err), 1);
        QVERIFY(kstest::contains(err, "no step 99"));
    }
};

QTEST_GUILESS_MAIN(TestCriticalPathCommand)
#include "tst_criticalpathcommand.moc"
