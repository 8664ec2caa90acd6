// NCCL collectives across ranks on the 2-rank DDP fixtures: matching, waits computed by hand
// from the fixture events, the per-rank table, the straggler verdict, and kernels launched
// before the profiling window (no args).
#include "core/analysis/ranks.h"

#include "fixturejson.h"
#include "testfiles.h"

#include <QTest>

#include <fstream>

using namespace ks;
using namespace ks::analysis;

namespace {

using kstest::fixture;
using kstest::readGz;

TimeNs ns(double us) { return static_cast<TimeNs>(std::llround(us * 1000.0)); }

struct Kernel {
    TimeNs start, end;
    std::int64_t elements;
};

// The NCCL kernels of a fixture with their args, in time order.
std::vector<Kernel> ncclKernels(const nlohmann::json& trace)
{
    std::vector<Kernel> out;
    for (const auto& e : trace["traceEvents"]) {
        if (e.value("cat", "") == "kernel" && e["args"].contains("Collective name"))
            out.push_back({ns(e["ts"].get<double>()), ns(e["ts"].get<double>()) + ns(e["dur"].get<double>()),
                           e["args"]["In msg nelems"].get<std::int64_t>()});
    }
    std::sort(out.begin(), out.end(), [](const Kernel& a, const Kernel& b) { return a.start < b.start; });
    return out;
}

RanksReport analyze(const std::vector<std::string>& files)
{
    auto loaded = loadWorkspace(files);
    loaded.workspace.alignAbsoluteClock();
    return analyzeRanks(loaded.workspace);
}

} // namespace

class TestRanks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void collectivesMatchedWithHandComputedWaits()
    {
        const auto k0 = ncclKernels(readGz(fixture("ddp_rank0.pt.trace.json.gz")));
        const auto k1 = ncclKernels(readGz(fixture("ddp_rank1.pt.trace.json.gz")));
        QCOMPARE(k0.size(), std::size_t(6));
        QCOMPARE(k1.size(), std::size_t(6));
        const auto report = analyze({fixture("ddp_rank1.pt.trace.json.gz"), fixture("ddp_rank0.pt.trace.json.gz")});
        QVERIFY(report.matching.warnings.empty());
        const auto& cs = report.matching.collectives;
        QCOMPARE(cs.size(), std::size_t(6));
        TimeNs waited[2] = {0, 0}, caused[2] = {0, 0};
        for (std::size_t i = 0; i < 6; ++i) {
            const auto& c = cs[i];
            QCOMPARE(c.processGroup, std::string("0"));
            QCOMPARE(c.seq, i);
            QCOMPARE(c.name, std::string("allreduce"));
            QCOMPARE(c.bytes, k0[i].elements * 4); // Float
            QVERIFY(c.complete && !c.mismatch);
            QCOMPARE(c.ranks.size(), std::size_t(2));
            QCOMPARE(c.ranks[0].rank, 0);
            QCOMPARE(c.ranks[1].rank, 1);
            QCOMPARE(c.ranks[0].start, k0[i].start); // same baseTimeNanoseconds: no shift
            QCOMPARE(c.ranks[1].end, k1[i].end);
            for (const auto& p : c.ranks)
                QCOMPARE(report.matching.kernels[p.member][p.kernel].slice, p.slice);
            const TimeNs last = std::max(k0[i].start, k1[i].start);
            const int lastRank = k0[i].start > k1[i].start ? 0 : 1;
            QCOMPARE(c.lastRank, lastRank);
            QCOMPARE(c.ranks[0].wait, last - k0[i].start);
            QCOMPARE(c.ranks[1].wait, last - k1[i].start);
            QCOMPARE(c.maxWait, std::max(last - k0[i].start, last - k1[i].start));
            waited[0] += last - k0[i].start;
            waited[1] += last - k1[i].start;
            caused[lastRank] += c.maxWait;
        }
        // What the data shows: rank 1 waits in the first three collectives (3.7, 4.4, 2.3 ms),
        // rank 0 in the last three (0.5, 0.6, 1.7 ms).
        QCOMPARE(cs[0].lastRank, 0);
        QCOMPARE(cs[0].ranks[1].wait, TimeNs(3734175));
        QCOMPARE(cs[5].lastRank, 1);
        QCOMPARE(cs[5].ranks[0].wait, TimeNs(1658401));

        QCOMPARE(report.ranks.size(), std::size_t(2));
        for (int r = 0; r < 2; ++r) {
            QCOMPARE(report.ranks[r].rank, r);
            QCOMPARE(report.ranks[r].collectiveWait, waited[r]);
            QCOMPARE(report.ranks[r].waitCaused, caused[r]);
            QCOMPARE(report.ranks[r].lastArrivals, std::size_t(3));
            QCOMPARE(report.ranks[r].steps, std::size_t(3));
        }
    }

    void rankTableAndHonestVerdict()
    {
        const auto report = analyze({fixture("ddp_rank0.pt.trace.json.gz"), fixture("ddp_rank1.pt.trace.json.gz")});
        const auto json1 = readGz(fixture("ddp_rank1.pt.trace.json.gz"));
        double stepSum = 0;
        for (const auto& e : json1["traceEvents"]) {
            if (e.value("cat", "") == "user_annotation" && e.value("name", "").starts_with("ProfilerStep#"))
                stepSum += e["dur"].get<double>();
        }
        QCOMPARE(report.ranks[1].stepTimeMean, ns(stepSum) / 3);
        for (const auto& r : report.ranks) {
            QVERIFY(r.kernelTime > 0 && r.collectiveTime > 0 && r.idleTime > 0);
            QVERIFY(r.kernelTime + r.collectiveTime + r.idleTime >= r.windowEnd - r.windowStart);
        }
        // Rank 0 caused 79% of the waiting, in steps 2 and 3, but rank 1 caused the waiting in
        // step 4: unbalanced, with no consistent straggler.
        const auto& v = report.straggler;
        QCOMPARE(v.rank.value_or(-1), 0);
        QVERIFY(!v.balanced);
        QVERIFY(!v.consistent);
        QVERIFY(v.share > 0.78 && v.share < 0.80);
        QCOMPARE(v.stepsWithWait, std::size_t(3));
        QCOMPARE(v.stepsLed, std::size_t(2));
        QCOMPARE(v.worstStep, 2LL);
        QCOMPARE(report.steps.size(), std::size_t(3));
        QCOMPARE(report.steps[2].step, 4LL);
        QCOMPARE(report.steps[2].rank, 1);
        QVERIFY(v.text.starts_with("no consistent straggler"));
    }

    // kineto drops the args of a collective whose launch came before the profiling window.
    void kernelsWithoutArgsStillMatch()
    {
        kstest::TempDir dir;
        auto rank0 = readGz(fixture("ddp_rank0.pt.trace.json.gz"));
        auto rank1 = readGz(fixture("ddp_rank1.pt.trace.json.gz"));
        nlohmann::json* firstNccl = nullptr;
        for (auto& e : rank1["traceEvents"]) {
            if (e.value("cat", "") == "kernel" && e["args"].contains("Collective name")
                && (!firstNccl || e["ts"].get<double>() < (*firstNccl)["ts"].get<double>()))
                firstNccl = &e;
        }
        // Rank 1's first collective lost its args, and rank 0 has an extra one before it.
        nlohmann::json early = *firstNccl;
        for (const char* key : {"Collective name", "Process Group Name", "Process Group Ranks", "In msg nelems",
                                "Out msg nelems", "dtype", "Group size", "External id"})
            firstNccl->at("args").erase(key);
        early["pid"] = 0;
        early["ts"] = early["ts"].get<double>() - 2000.0;
        early["dur"] = 50.0;
        early["args"] = {{"device", 0}, {"stream", 17}};
        rank0["traceEvents"].push_back(early);
        const std::string p0 = dir.filePath("r0.json");
        const std::string p1 = dir.filePath("r1.json");
        std::ofstream(p0) << rank0.dump();
        std::ofstream(p1) << rank1.dump();
        const auto report = analyze({p0, p1});
        const auto& cs = report.matching.collectives;
        // The extra kernel is collective 0, on rank 0 only; the six real ones still pair up,
        // the argless one on rank 1 with rank 0's first allreduce of 1,049,088 elements.
        QCOMPARE(cs.size(), std::size_t(7));
        QCOMPARE(cs[0].ranks.size(), std::size_t(1));
        QCOMPARE(cs[0].ranks[0].rank, 0);
        for (std::size_t i = 1; i < 7; ++i) {
            QCOMPARE(cs[i].ranks.size(), std::size_t(2));
            QVERIFY(!cs[i].mismatch);
            QCOMPARE(cs[i].name, std::string("allreduce"));
        }
        QCOMPARE(cs[1].bytes, std::int64_t(1049088) * 4);
        QCOMPARE(cs[1].ranks[1].start, ns((*firstNccl)["ts"].get<double>()));
        bool shiftExplained = false, missingNamed = false;
        for (const auto& w : report.matching.warnings) {
            shiftExplained |= w.find("before the profiling window") != std::string::npos;
            missingNamed |= w.find("collective #0 (allreduce) is on 1 of 2 ranks") != std::string::npos;
        }
        QVERIFY(shiftExplained);
        QVERIFY(missingNamed);
    }

    // Recorded on two H200s: rank 1 sleeps 20 ms before every step. Rank 0's first NCCL
    // kernel was launched before the profiling window (no args; its twin on rank 1 ran
    // before rank 1's window began).
    void sleepingRankIsTheStraggler()
    {
        const auto k0 = ncclKernels(readGz(fixture("straggler_rank0.pt.trace.json.gz")));
        const auto k1 = ncclKernels(readGz(fixture("straggler_rank1.pt.trace.json.gz")));
        QCOMPARE(k0.size(), std::size_t(8));
        QCOMPARE(k1.size(), std::size_t(8));
        TimeNs expectedCaused = 0;
        for (std::size_t i = 0; i < 8; ++i) {
            QVERIFY(k1[i].start > k0[i].start);
            expectedCaused += k1[i].start - k0[i].start;
        }
        const auto report =
            analyze({fixture("straggler_rank1.pt.trace.json.gz"), fixture("straggler_rank0.pt.trace.json.gz")});
        const auto& cs = report.matching.collectives;
        QCOMPARE(cs.size(), std::size_t(9));
        QCOMPARE(cs[0].ranks.size(), std::size_t(1)); // the argless kernel, on rank 0 only
        for (std::size_t i = 1; i < 9; ++i) {
            QVERIFY(cs[i].complete && !cs[i].mismatch);
            QCOMPARE(cs[i].lastRank, 1);
            QCOMPARE(cs[i].ranks[0].start, k0[i - 1].start);
        }
        QCOMPARE(report.ranks[1].waitCaused, expectedCaused);
        QCOMPARE(report.ranks[0].waitCaused, TimeNs(0));
        const auto& v = report.straggler;
        QCOMPARE(v.rank.value_or(-1), 1);
        QVERIFY(v.consistent && !v.balanced);
        QCOMPARE(v.share, 1.0);
        QCOMPARE(v.waitCaused, expectedCaused);
        QVERIFY(v.text.starts_with("rank 1 is the straggler"));
    }

    // kinetoscope-cli collect --merge: one file, two GPUs, no distributedInfo and no NCCL args.
    void mergedCollectorFileMatchesInIssueOrder()
    {
        std::string events;
        auto kernel = [&](int pid, int device, int correlation, double launch, double start) {
            char buf[1024];
            std::snprintf(
                buf, sizeof buf,
                R"J({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":%d,"tid":1,"ts":%.3f,"dur":2,"args":{"correlation":%d}},
{"ph":"s","cat":"ac2g","name":"ac2g","id":%d,"pid":%d,"tid":1,"ts":%.3f},
{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)","pid":%d,"tid":7,"ts":%.3f,"dur":10,"args":{"device":%d,"stream":7,"correlation":%d}},
{"ph":"f","cat":"ac2g","name":"ac2g","id":%d,"pid":%d,"tid":7,"ts":%.3f,"bp":"e"},
)J",
                pid, launch, correlation, correlation, pid, launch, device, start, device, correlation, correlation,
                device, start);
            events += buf;
        };
        kernel(100, 0, 1, 90, 100);
        kernel(200, 1, 2, 95, 150);
        kernel(100, 0, 3, 250, 300);
        kernel(200, 1, 4, 260, 280);
        events += R"({"ph":"X","cat":"cpu_op","name":"launcher","pid":50,"tid":50,"ts":1,"dur":400})";
        auto result = loadTraceFromMemory("{\"traceEvents\": [" + events + "]}", "merged.pt.trace.json");
        QVERIFY(result.ok());
        Workspace ws;
        ws.add(result.trace, "merged.pt.trace.json");
        ws.sortByRank();
        ws.alignAbsoluteClock();
        const auto report = analyzeRanks(ws);
        const auto& cs = report.matching.collectives;
        QCOMPARE(cs.size(), std::size_t(2));
        QCOMPARE(cs[0].processGroup, std::string("?"));
        QCOMPARE(cs[0].name, std::string("allreduce"));
        QCOMPARE(cs[0].ranks.size(), std::size_t(2));
        QCOMPARE(cs[0].lastRank, 1);
        QCOMPARE(cs[0].ranks[0].wait, TimeNs(50000));
        QCOMPARE(cs[1].lastRank, 0);
        QCOMPARE(cs[1].ranks[1].wait, TimeNs(20000));
        QCOMPARE(report.ranks[0].waitCaused, TimeNs(20000));
        QCOMPARE(report.ranks[1].waitCaused, TimeNs(50000));
        // No steps: each rank's window is its own GPU activity, not the launcher's 400 µs.
        QCOMPARE(report.ranks[0].steps, std::size_t(0));
        QCOMPARE(report.ranks[0].windowStart, TimeNs(100000));
        QCOMPARE(report.ranks[0].windowEnd, TimeNs(310000));
        QCOMPARE(report.ranks[0].stepTimeMean, TimeNs(210000));
        QCOMPARE(report.ranks[0].idleTime, TimeNs(190000));
        QCOMPARE(report.ranks[1].windowStart, TimeNs(150000));
        QCOMPARE(report.ranks[1].windowEnd, TimeNs(290000));
        QCOMPARE(report.ranks[1].idleTime, TimeNs(120000));
    }

    // The real file: collect --merge of tests/gpu/ddp_ranks.py under torchrun, 2 ranks over
    // NCCL on two H100s (tests/gpu/h100x2-ddp-results.txt). Its NCCL kernels carry no args, so
    // they pair up in issue order per GPU; waits computed here from the file's kernels.
    void collectedNcclMergedFileOnTwoGpus()
    {
        const std::string path = fixture("collected_nccl_merged.pt.trace.json.gz");
        const auto json = readGz(path);
        std::vector<Kernel> onDevice[2];
        for (const auto& e : json["traceEvents"]) {
            if (e.value("cat", "") == "kernel" && isNcclKernelName(e["name"].get<std::string>()))
                onDevice[e["args"]["device"].get<int>()].push_back(
                    {ns(e["ts"].get<double>()), ns(e["ts"].get<double>()) + ns(e["dur"].get<double>()), -1});
        }
        for (auto& k : onDevice)
            std::sort(k.begin(), k.end(), [](const Kernel& a, const Kernel& b) { return a.start < b.start; });
        QCOMPARE(onDevice[0].size(), std::size_t(15));
        QCOMPARE(onDevice[1].size(), std::size_t(15));

        const auto report = analyze({path});
        QCOMPARE(report.ranks.size(), std::size_t(3)); // rank 0, rank 1, torchrun's process
        QCOMPARE(report.ranks[0].rank, 0);
        QCOMPARE(report.ranks[1].rank, 1);
        const auto& cs = report.matching.collectives;
        QCOMPARE(cs.size(), std::size_t(15));
        // DDP's set-up (an allgather, broadcasts of the parameters), then one allreduce a step.
        const char* names[] = {"allgather", "broadcast", "broadcast", "allreduce", "broadcast", "broadcast"};
        TimeNs waited[2] = {0, 0}, busy[2] = {0, 0};
        for (std::size_t i = 0; i < cs.size(); ++i) {
            const auto& c = cs[i];
            QCOMPARE(c.processGroup, std::string("?"));
            QCOMPARE(c.name, std::string(i < 6 ? names[i] : "allreduce"));
            QVERIFY(c.complete && !c.mismatch);
            QCOMPARE(c.ranks.size(), std::size_t(2));
            const TimeNs last = std::max(onDevice[0][i].start, onDevice[1][i].start);
            for (int r = 0; r < 2; ++r) {
                QCOMPARE(c.ranks[r].rank, r);
                QCOMPARE(c.ranks[r].start, onDevice[r][i].start);
                QCOMPARE(c.ranks[r].wait, last - onDevice[r][i].start);
                waited[r] += last - onDevice[r][i].start;
                // Busy time counts over the steps: DDP's set-up collectives come before the first.
                const auto& rank = report.ranks[std::size_t(r)];
                if (onDevice[r][i].start >= rank.windowStart && onDevice[r][i].start < rank.windowEnd)
                    busy[r] += onDevice[r][i].end - onDevice[r][i].start; // one stream: no overlap
            }
        }
        for (int r = 0; r < 2; ++r) {
            QCOMPARE(report.ranks[r].collectiveWait, waited[r]);
            QCOMPARE(report.ranks[r].collectiveTime, busy[r]);
            // No ProfilerStep: the rank's steps are its Optimizer.step#SGD.step iterations
            // (issue 35), the first from where its loop begins (not its set-up): the window holds
            // its GPU work from the first allreduce on, not the set-up's allgather.
            std::size_t optimizerSteps = 0;
            for (const auto& e : json["traceEvents"])
                optimizerSteps += e.value("ph", "") == "X" && e.value("name", "") == "Optimizer.step#SGD.step"
                    && e.value("pid", 0) == 1134 + r;
            QCOMPARE(optimizerSteps, std::size_t(10));
            QCOMPARE(report.ranks[r].steps, optimizerSteps);
            QVERIFY(report.ranks[r].windowStart > onDevice[r].front().start);
            QVERIFY(report.ranks[r].windowStart <= onDevice[r][3].start); // the first allreduce
            QVERIFY(busy[r] > 0);
            QVERIFY(report.ranks[r].windowEnd >= onDevice[r].back().end);
        }
        // Rank 1 waits 22.2 ms for rank 0 in all; rank 0 only 0.06 ms, in the one broadcast
        // where rank 1 came last.
        QCOMPARE(report.ranks[0].waitCaused, waited[1]);
        QVERIFY(waited[1] > 22 * 1000 * 1000 && waited[0] < 100 * 1000);
    }

    void kernelFamilyNameOfArglessKernel()
    {
        QCOMPARE(collectiveNameFromKernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
                 std::string("allreduce"));
        QCOMPARE(collectiveNameFromKernel("ncclKernel_AllGather_RING_LL_Sum_int8_t(x)"), std::string("allgather"));
        QVERIFY(isNcclKernelName("ncclDevKernel_SendRecv(x)"));
        QVERIFY(!isNcclKernelName("void at::native::reduce_kernel<>"));
    }
};

QTEST_GUILESS_MAIN(TestRanks)
#include "tst_ranks.moc"
