// kinetoscope-cli critical-path: the JSON contract, --step, --range, --what-if, several ranks and
// their collective waits, bad options.
#include "clirun.h"
#include "fixturejson.h"
#include "testtext.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdio>

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
    // The start (µs, on the first file's clock) of each NCCL kernel of a fixture, in order.
    static std::vector<double> ncclStarts(const char* name)
    {
        const auto trace = kstest::readGz(fixture(name));
        const auto base0 = kstest::readGz(fixture("ddp_rank0"))["baseTimeNanoseconds"].get<double>();
        const double shift = (trace["baseTimeNanoseconds"].get<double>() - base0) / 1000.0;
        std::vector<double> starts;
        for (const auto& e : trace["traceEvents"])
            if (e.value("cat", "") == "kernel" && e.value("name", "").starts_with("ncclDevKernel"))
                starts.push_back(e["ts"].get<double>() + shift);
        std::sort(starts.begin(), starts.end());
        return starts;
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
        // Rank 0's all-reduce started at 4516938346421.936 µs: from there to rank 1's arrival
        // rank 0 waits in it (collective_wait, on rank 0's stream); before that the path is
        // rank 1's CPU.
        const auto& segments = step4["segments"];
        std::size_t at = 0;
        while (segments[at].value("family", "") != "NCCL")
            ++at;
        QCOMPARE(segments[at - 1]["kind"].get<std::string>(), std::string("collective_wait"));
        QCOMPARE(segments[at - 1]["track"].get<std::string>().rfind("Rank 0", 0), std::size_t(0));
        QVERIFY(std::fabs(segments[at - 1]["start_us"].get<double>() - 4516938346421.936) < 1e-3);
        QCOMPARE(segments[at - 2]["track"].get<std::string>().rfind("Rank 1", 0), std::size_t(0));
        QVERIFY(std::fabs(timeOn(step4, "Rank 1") - (4516938346421.936 - step4["start_us"].get<double>())) < 1e-3);
        QVERIFY(std::fabs(step4["breakdown"]["collective_wait"].get<double>() - (4516938348080.337 - 4516938346421.936))
                < 1e-3);
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

    // collective_wait on the rank that waits, against the matching NCCL kernels (the k-th
    // of each rank) read from the two trace files: rank 0 waits in the sixth all-reduce
    // (step 4), rank 1 in the second (step 2); the rank that arrives last waits for nobody.
    void collectiveWaitFromTheTraces()
    {
        const auto starts0 = ncclStarts("ddp_rank0"), starts1 = ncclStarts("ddp_rank1");
        QCOMPARE(starts0.size(), std::size_t(6));
        QCOMPARE(starts1.size(), std::size_t(6));
        const auto rank0 = runJson({fixture("ddp_rank0"), fixture("ddp_rank1")});
        const auto wait0 = [&](std::size_t i) {
            return rank0["steps"][i]["breakdown"]["collective_wait"].get<double>();
        };
        QCOMPARE(wait0(0), 0.0);
        QCOMPARE(wait0(1), 0.0);
        QVERIFY2(std::fabs(wait0(2) - (starts1[5] - starts0[5])) < 1e-3, std::to_string(wait0(2)).c_str());
        const auto rank1 = runJson({"--rank=1", fixture("ddp_rank0"), fixture("ddp_rank1")});
        const double wait1 = rank1["steps"][0]["breakdown"]["collective_wait"].get<double>();
        QVERIFY2(std::fabs(wait1 - (starts0[1] - starts1[1])) < 1e-3, std::to_string(wait1).c_str());
        for (const auto& step : rank1["steps"])
            checkStep(step);
        // Rank 1 alone: no other rank, no collective wait.
        const auto alone = runJson({fixture("ddp_rank1")});
        QCOMPARE(alone["steps"][0]["breakdown"]["collective_wait"].get<double>(), 0.0);
        // No step warns: DDP records events on the compute stream right after launching an
        // all-reduce on NCCL's, which once read as copies waiting for an all-reduce that was
        // still running (two dropped edges per step).
        for (const auto* j : {&rank0, &rank1, &alone}) {
            for (const auto& step : (*j)["steps"])
                QCOMPARE(step["warnings"].get<int>(), 0);
            for (const auto& w : (*j)["warnings"])
                QVERIFY2(w.get<std::string>().find("dependencies") == std::string::npos, w.dump().c_str());
        }
    }

    // --range: the path of a time range (µs, as the JSON reports them). Step 4's own window
    // gives step 4's path; a range from between a launch and its kernel keeps the launch.
    void rangeOption()
    {
        const auto step = runJson({"--step=4", fixture("train_baseline")})["steps"][0];
        char window[64];
        std::snprintf(window, sizeof window, "%.3f:%.3f", step["start_us"].get<double>(), step["end_us"].get<double>());
        const auto range = runJson({"--range", window, fixture("train_baseline")});
        QCOMPARE(range["steps"].size(), std::size_t(1));
        const auto& r = range["steps"][0];
        checkStep(r);
        QCOMPARE(r["step"].get<int>(), -1);
        QVERIFY(std::fabs(r["length_us"].get<double>() - step["length_us"].get<double>()) < 1e-3);
        for (const auto& [key, value] : step["breakdown"].items())
            QVERIFY2(std::fabs(r["breakdown"][key].get<double>() - value.get<double>()) < 1e-3, key.c_str());
        std::string out;
        QCOMPARE(run({"--range", window, fixture("train_baseline")}, &out), 0);
        QVERIFY(out.starts_with("range: "));
        std::string err;
        for (const char* bad : {"5", "9:3", "a:b", "1:", ":2"}) {
            QCOMPARE(run({"--range", bad, fixture("train_baseline")}, nullptr, &err), 2);
            QVERIFY(kstest::contains(err, "START_US:END_US"));
        }
        QCOMPARE(run({"--range=1:2", "--step=3", fixture("train_baseline")}), 2);
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
