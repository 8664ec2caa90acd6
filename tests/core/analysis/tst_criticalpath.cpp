// The critical path (issue 36): tiny traces with known longest paths, then the fixtures.
#include "core/analysis/criticalpath.h"
#include "core/analysis/diff.h"
#include "core/analysis/rankscriticalpath.h"
#include "core/loading/loader.h"
#include "fixtureloader.h"

#include <QTest>

#include <chrono>
#include <numeric>

using namespace ks;
using namespace ks::analysis;

namespace {

// A trace from its events (µs): the CPU thread is pid/tid 100, streams are pid 0's tids.
std::shared_ptr<const Trace> traceOf(const std::string& events)
{
    const std::string text = R"({"schemaVersion":1,"traceEvents":[)" + events + "]}";
    const LoadResult loaded = loadTraceFromMemory(text, "inline.json");
    if (!loaded.ok())
        (std::fprintf(stderr, "inline trace did not load\n"), std::abort());
    return loaded.trace;
}

std::string cpu(const std::string& cat, const std::string& name, double ts, double dur, long corr = -1, int tid = 100)
{
    std::string e = R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":100,"tid":)"
        + std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur);
    if (corr >= 0)
        e += R"(,"args":{"correlation":)" + std::to_string(corr) + "}";
    return e + "},";
}

std::string gpu(const std::string& name, double ts, double dur, long corr, int stream = 7,
                const std::string& cat = "kernel")
{
    return R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":0,"tid":)" + std::to_string(stream)
        + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"args":{"correlation":)"
        + std::to_string(corr) + R"(,"device":0,"stream":)" + std::to_string(stream) + "}},";
}

std::string step(double ts, double dur) { return cpu("user_annotation", "ProfilerStep#1", ts, dur); }

// Drops the trailing comma of the last event.
std::string events(std::string text)
{
    text.pop_back();
    return text;
}

TimeNs breakdownOf(const CriticalPath& p, PathKind k) { return p.breakdown[std::size_t(k)]; }

TimeNs us(double v) { return TimeNs(v * 1000.0); }

// The invariants of every path: it spans its window, its breakdown and segments add up.
void checkAddsUp(const StepCriticalPath& s)
{
    QCOMPARE(s.path.length, s.end - s.start);
    QCOMPARE(std::accumulate(s.path.breakdown.begin(), s.path.breakdown.end(), TimeNs(0)), s.path.length);
    TimeNs segments = 0;
    TimeNs cursor = s.start;
    for (const auto& seg : s.path.segments) {
        QVERIFY(seg.duration > 0);
        QCOMPARE(seg.start, cursor); // contiguous, in time order
        cursor += seg.duration;
        segments += seg.duration;
    }
    QCOMPARE(segments, s.path.length);
}

bool hasSegment(const CriticalPath& p, PathKind kind, const std::string& nameContains)
{
    return std::any_of(p.segments.begin(), p.segments.end(), [&](const PathSegment& s) {
        return s.kind == kind && s.name.find(nameContains) != std::string::npos;
    });
}

WhatIf whatIf(const std::string& text)
{
    std::string error;
    auto w = WhatIf::parse(text, error);
    if (!w)
        (std::fprintf(stderr, "%s\n", error.c_str()), std::abort());
    return *w;
}

StepCriticalPath onlyStep(const std::shared_ptr<const Trace>& trace, const std::vector<WhatIf>& whatIfs = {})
{
    const auto steps = criticalPathOf(facts::makeTraceFacts(trace)).analyzeSteps(whatIfs);
    if (steps.size() != 1)
        (std::fprintf(stderr, "expected one step\n"), std::abort());
    return steps.front();
}

} // namespace

class TstCriticalPath : public QObject {
    Q_OBJECT

private slots:
    // Short kernels launched from long ops: the path stays on the CPU.
    void launchBound()
    {
        const auto s = onlyStep(traceOf(
            events(step(0, 100) + cpu("cpu_op", "aten::add", 10, 20) + cpu("cuda_runtime", "cudaLaunchKernel", 20, 5, 1)
                   + cpu("cpu_op", "aten::mul", 50, 20) + cpu("cuda_runtime", "cudaLaunchKernel", 60, 5, 2)
                   + gpu("add_kernel", 27, 2, 1) + gpu("mul_kernel", 67, 2, 2))));
        checkAddsUp(s);
        QCOMPARE(s.path.length, us(100));
        QCOMPARE(breakdownOf(s.path, PathKind::Launch), us(10));
        QCOMPARE(breakdownOf(s.path, PathKind::CpuOp), us(90));
        QCOMPARE(breakdownOf(s.path, PathKind::Kernel), TimeNs(0));
        QVERIFY(hasSegment(s.path, PathKind::CpuOp, "aten::add"));
    }

    // Long kernels and a device sync: the path runs through the GPU and back through the sync.
    void gpuBoundWithSyncWait()
    {
        const auto trace = traceOf(events(step(0, 100) + cpu("cuda_runtime", "cudaLaunchKernel", 5, 3, 1)
                                          + cpu("cuda_runtime", "cudaLaunchKernel", 9, 3, 2)
                                          + cpu("cuda_runtime", "cudaDeviceSynchronize", 15, 77) + gpu("k1", 10, 40, 1)
                                          + gpu("k2", 51, 39, 2)));
        const auto s = onlyStep(trace, {whatIf("kernel:^k1$=0.5")});
        checkAddsUp(s);
        QCOMPARE(breakdownOf(s.path, PathKind::Kernel), us(79));
        QCOMPARE(breakdownOf(s.path, PathKind::Launch), us(5)); // cudaLaunchKernel at 5 -> k1 at 10
        QCOMPARE(breakdownOf(s.path, PathKind::GpuIdle), us(1));
        QCOMPARE(breakdownOf(s.path, PathKind::SyncWait), us(2)); // k2 ends at 90, the sync returns at 92
        QCOMPARE(breakdownOf(s.path, PathKind::CpuOp), us(13));
        QVERIFY(hasSegment(s.path, PathKind::SyncWait, "cudaDeviceSynchronize"));
        // k1 halved: k2 follows it at 31 (1 µs gap kept), ends at 70; the sync at 72, the step 8 later.
        QVERIFY(s.whatIf);
        QCOMPARE(s.whatIf->length, us(80));
        // Factor 1 reproduces the measured path.
        const auto same = onlyStep(trace, {whatIf("kernel:.=1"), whatIf("op:.=1"), whatIf("category:other=1")});
        QCOMPARE(same.whatIf->length, same.path.length);
        // Removing the sync's wait category leaves the GPU: the CPU still waits for k2.
        const auto removed = onlyStep(trace, {whatIf("kernel:.=0")});
        QVERIFY(removed.whatIf->length < us(40));
    }

    // Stream 8 waits for stream 7 through an event: the path crosses streams.
    void twoStreamsJoinedByEvent()
    {
        const auto trace = traceOf(events(
            step(0, 90) + cpu("cuda_runtime", "cudaLaunchKernel", 2, 2, 1)
            + cpu("cuda_runtime", "cudaEventRecordWithFlags", 5, 1) + cpu("cuda_runtime", "cudaStreamWaitEvent", 7, 1)
            + cpu("cuda_runtime", "cudaLaunchKernel", 9, 2, 2) + cpu("cuda_runtime", "cudaDeviceSynchronize", 12, 70)
            + gpu("producer", 5, 55, 1, 7) + gpu("consumer", 61, 19, 2, 8)));
        const auto s = onlyStep(trace, {whatIf("kernel:producer=0")});
        checkAddsUp(s);
        QCOMPARE(breakdownOf(s.path, PathKind::Kernel), us(74)); // both kernels
        QCOMPARE(breakdownOf(s.path, PathKind::Launch), us(3)); // not the consumer's 52 µs "launch"
        QCOMPARE(breakdownOf(s.path, PathKind::GpuIdle), us(1));
        QVERIFY(hasSegment(s.path, PathKind::Kernel, "producer"));
        QVERIFY(hasSegment(s.path, PathKind::Kernel, "consumer"));
        // Without the producer, the consumer starts after its launch (9 + 3 µs typical latency).
        QCOMPARE(s.whatIf->length, us(41));
    }

    // One cudaGraphLaunch, three kernels with its correlation id.
    void cudaGraphLaunchesMany()
    {
        const auto s = onlyStep(traceOf(events(step(0, 80) + cpu("cuda_runtime", "cudaGraphLaunch", 5, 5, 5)
                                               + cpu("cuda_runtime", "cudaStreamSynchronize", 11, 61)
                                               + gpu("g1", 12, 18, 5) + gpu("g2", 31, 19, 5) + gpu("g3", 51, 19, 5))));
        checkAddsUp(s);
        QCOMPARE(breakdownOf(s.path, PathKind::Kernel), us(56));
        QCOMPARE(breakdownOf(s.path, PathKind::Launch), us(7));
        for (const char* k : {"g1", "g2", "g3"})
            QVERIFY(hasSegment(s.path, PathKind::Kernel, k));
        QVERIFY(hasSegment(s.path, PathKind::SyncWait, "cudaStreamSynchronize"));
    }

    // Rank 0 waits in an all-reduce for rank 1, whose CPU was busy in aten::mm: rank 0's
    // path goes through rank 1's op.
    void crossRankCollective()
    {
        const std::string nccl = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
        const auto rank0 =
            traceOf(events(step(0, 80) + cpu("cuda_runtime", "cudaLaunchKernel", 5, 1, 1)
                           + cpu("cuda_runtime", "cudaStreamSynchronize", 10, 62) + gpu(nccl, 8, 62, 1)));
        const auto rank1 = traceOf(
            events(step(0, 80) + cpu("cpu_op", "aten::mm", 2, 53) + cpu("cuda_runtime", "cudaLaunchKernel", 56, 1, 1)
                   + cpu("cuda_runtime", "cudaStreamSynchronize", 58, 14) + gpu(nccl, 60, 10, 1)));
        std::vector<PathMember> members(2);
        members[0] = {facts::makeTraceFacts(rank0), 0, "rank 0"};
        members[1] = {facts::makeTraceFacts(rank1), 0, "rank 1"};
        auto ncclSlice = [](const Trace& t) {
            for (SliceId s = 0; s < t.slices().size(); ++s)
                if (t.classOf(s) == SliceClass::Kernel)
                    return s;
            return kNoSlice;
        };
        CollectiveMatching matching;
        MatchedCollective c;
        c.name = "allreduce";
        c.lastRank = 1;
        c.ranks.push_back({0, 0, 0, ncclSlice(*rank0), us(8), us(70), us(52)});
        c.ranks.push_back({1, 1, 0, ncclSlice(*rank1), us(60), us(70), 0});
        matching.collectives.push_back(c);
        const CriticalPathAnalysis analysis(CriticalPathGraphBuilder(members, &matching));
        const auto steps = analysis.analyzeSteps({whatIf("op:aten::mm=0")});
        QCOMPARE(steps.size(), std::size_t(1));
        const auto& s = steps.front();
        checkAddsUp(s);
        // Rank 1's step time and mm up to 8, when rank 0's all-reduce starts; from there to
        // rank 1's arrival at 60 rank 0 waits in it (collective_wait), then it runs 10 µs.
        QCOMPARE(breakdownOf(s.path, PathKind::CpuOp), us(2 + 6 + 8));
        QCOMPARE(breakdownOf(s.path, PathKind::CollectiveWait), us(60 - 8));
        QCOMPARE(breakdownOf(s.path, PathKind::Launch), TimeNs(0));
        QCOMPARE(breakdownOf(s.path, PathKind::Kernel), us(10)); // the all-reduce once all arrived
        QCOMPARE(breakdownOf(s.path, PathKind::SyncWait), us(2));
        const auto mm = std::find_if(s.path.segments.begin(), s.path.segments.end(),
                                     [](const PathSegment& seg) { return seg.name == "aten::mm"; });
        QVERIFY(mm != s.path.segments.end());
        QVERIFY(mm->track.starts_with("rank 1"));
        QCOMPARE(mm->duration, us(6));
        const auto wait = std::next(mm);
        QCOMPARE(wait->kind, PathKind::CollectiveWait);
        QCOMPARE(wait->name, nccl);
        QVERIFY(wait->track.starts_with("rank 0"));
        QCOMPARE(wait->start, us(8));
        QCOMPARE(wait->waitedFor.member, 1u); // rank 1's all-reduce, the last to arrive
        QCOMPARE(wait->waitedFor.slice, ncclSlice(*rank1));
        // Without rank 1's mm it launches at 3 and arrives at 7: rank 0 (at 8) is then last;
        // the all-reduce ends at 18, the sync at 20, the step at 28; nobody waits.
        QCOMPARE(s.whatIf->length, us(28));
        QCOMPARE(breakdownOf(*s.whatIf, PathKind::CollectiveWait), TimeNs(0));
        // No rank waiting for another: rank 0's all-reduce runs its 10 µs from its start.
        const auto balanced = analysis.analyzeSteps({whatIf("category:collective_wait=0")}).front();
        QCOMPARE(balanced.whatIf->length, us(8 + 10 + 2 + 8));
        // Rank 0 alone: its kernel's wait is its own (no edge to the other rank).
        const auto alone = onlyStep(rank0);
        checkAddsUp(alone);
        QCOMPARE(breakdownOf(alone.path, PathKind::Kernel), us(62));
    }

    // A range that starts after a kernel's launch call ended but before the kernel: the kernel
    // keeps its launch as a launch segment from the range's start (named so), not an
    // unexplained gap.
    void rangeStartingBetweenLaunchAndKernel()
    {
        const auto trace =
            traceOf(events(step(0, 100) + cpu("cuda_runtime", "cudaLaunchKernel", 5, 2, 1)
                           + cpu("cuda_runtime", "cudaDeviceSynchronize", 10, 45) + gpu("k", 20, 30, 1)));
        const auto analysis = criticalPathOf(facts::makeTraceFacts(trace));
        const auto s = analysis.analyzeRange(us(8), us(55));
        checkAddsUp(s);
        QCOMPARE(breakdownOf(s.path, PathKind::Other), TimeNs(0));
        QCOMPARE(breakdownOf(s.path, PathKind::Launch), us(20 - 8));
        QCOMPARE(breakdownOf(s.path, PathKind::Kernel), us(30));
        QCOMPARE(breakdownOf(s.path, PathKind::SyncWait), us(5));
        QCOMPARE(s.path.segments.front().kind, PathKind::Launch);
        QCOMPARE(s.path.segments.front().name, std::string("cudaLaunchKernel (called before the window)"));
        QCOMPARE(s.path.segments.front().start, us(8));
        // The step itself has the launch inside: the real call, from its start.
        const auto whole = analysis.analyzeSteps().front();
        QVERIFY(hasSegment(whole.path, PathKind::Launch, "cudaLaunchKernel"));
        QVERIFY(!hasSegment(whole.path, PathKind::Launch, "before the window"));
    }

    // The event recorded and waited for before a range still holds in it: the consumer waits
    // for the producer (the path runs through the producer), whether the consumer's launch is
    // before the range too or inside it; not a 48 µs "launch (called before the window)".
    void eventWaitedForBeforeTheRange_data()
    {
        QTest::addColumn<double>("from"); // the consumer's launch runs 9..11
        QTest::newRow("launch before the range") << 13.0;
        QTest::newRow("launch inside the range") << 8.5;
    }
    void eventWaitedForBeforeTheRange()
    {
        QFETCH(double, from);
        const auto trace = traceOf(events(
            step(0, 90) + cpu("cuda_runtime", "cudaLaunchKernel", 2, 2, 1)
            + cpu("cuda_runtime", "cudaEventRecordWithFlags", 5, 1) + cpu("cuda_runtime", "cudaStreamWaitEvent", 7, 1)
            + cpu("cuda_runtime", "cudaLaunchKernel", 9, 2, 2) + cpu("cuda_runtime", "cudaDeviceSynchronize", 12, 70)
            + gpu("producer", 5, 55, 1, 7) + gpu("consumer", 61, 19, 2, 8)));
        const auto s = criticalPathOf(facts::makeTraceFacts(trace)).analyzeRange(us(from), us(82));
        checkAddsUp(s);
        QCOMPARE(s.warnings, std::size_t(0));
        // The producer from the range's start to 60, the consumer's 1 µs behind it, the
        // consumer, the sync's 2 µs after it.
        QCOMPARE(breakdownOf(s.path, PathKind::Kernel), us(60 - from) + us(19));
        QCOMPARE(breakdownOf(s.path, PathKind::GpuIdle), us(1));
        QCOMPARE(breakdownOf(s.path, PathKind::SyncWait), us(2));
        QCOMPARE(breakdownOf(s.path, PathKind::Launch), TimeNs(0));
        QCOMPARE(breakdownOf(s.path, PathKind::Other), TimeNs(0));
        QVERIFY(hasSegment(s.path, PathKind::Kernel, "producer"));
        QVERIFY(!hasSegment(s.path, PathKind::Launch, "before the window"));
        QCOMPARE(s.path.segments.front().name, std::string("producer"));
        QCOMPARE(s.path.segments.front().start, us(from));
    }

    // The same on ddp_rank1 alone: a range over the last 3 ms of its second all-reduce (launched
    // with its cudaEventRecord / cudaStreamWaitEvent and the device-to-device copies waiting
    // for it 1.5 ms before the range). The path starts in the all-reduce, then the copies;
    // before, these 3 ms were the copies' "launch (called before the window)".
    void eventWaitedForBeforeTheRangeOfDdpRank1()
    {
        const auto trace = testing::fixtureTrace("ddp_rank1");
        std::vector<SliceId> nccl;
        for (SliceId sl = 0; sl < trace->slices().size(); ++sl)
            if (trace->classOf(sl) == SliceClass::Kernel
                && trace->str(trace->slices().name[sl]).starts_with("ncclDevKernel"))
                nccl.push_back(sl);
        std::sort(nccl.begin(), nccl.end(),
                  [&](SliceId a, SliceId b) { return trace->slices().start[a] < trace->slices().start[b]; });
        QCOMPARE(nccl.size(), std::size_t(6));
        const TimeNs allReduceEnd = trace->slices().end(nccl[1]);
        const auto s =
            criticalPathOf(facts::makeTraceFacts(trace)).analyzeRange(allReduceEnd - us(3000), allReduceEnd + us(500));
        checkAddsUp(s);
        QVERIFY(!hasSegment(s.path, PathKind::Launch, "before the window"));
        const PathSegment& first = s.path.segments.front();
        QCOMPARE(first.kind, PathKind::Kernel);
        QCOMPARE(first.item.slice, nccl[1]);
        QCOMPARE(first.duration, us(3000));
        QVERIFY(hasSegment(s.path, PathKind::Memcpy, "Memcpy DtoD"));
    }

    // An event whose guessed producer (the op launched last before cudaEventRecord) ends after
    // the op launched after cudaStreamWaitEvent started: it was recorded on another stream.
    // The guess is dropped, not counted as an edge against time; the consumer keeps its launch.
    void implausibleEventGuessIsNoWarning()
    {
        const auto s = onlyStep(traceOf(events(
            step(0, 100) + cpu("cuda_runtime", "cudaLaunchKernel", 2, 2, 1)
            + cpu("cuda_runtime", "cudaEventRecord", 6, 1) + cpu("cuda_runtime", "cudaStreamWaitEvent", 8, 1)
            + cpu("cuda_runtime", "cudaLaunchKernel", 10, 2, 2) + cpu("cuda_runtime", "cudaDeviceSynchronize", 20, 45)
            + gpu("k1", 5, 55, 1, 7) + gpu("k2", 14, 16, 2, 8))));
        checkAddsUp(s);
        QCOMPARE(s.warnings, std::size_t(0));
        QCOMPARE(breakdownOf(s.path, PathKind::Other), TimeNs(0));
        QCOMPARE(breakdownOf(s.path, PathKind::Kernel), us(55)); // k1, which the sync waits for
    }

    // The DDP pair on their absolute clock: rank 0's step 4 waits in its last all-reduce for
    // rank 1, rank 1's step 2 in its second one for rank 0. The wait on the path is the time
    // from the waiting rank's kernel start to the last rank's, read here from the two traces'
    // NCCL kernels (the k-th of each), independently of the matching.
    void collectiveWaitOfTheDdpPair()
    {
        Workspace ranks;
        for (const char* name : {"ddp_rank0", "ddp_rank1"})
            ranks.add(testing::fixtureTrace(name), std::string(name) + ".pt.trace.json.gz");
        ranks.sortByRank();
        const RanksCriticalPath paths(ranks);
        std::vector<std::vector<TimeNs>> ncclStarts(2); // on the absolute clock
        for (std::size_t r = 0; r < 2; ++r) {
            const Trace& t = *paths.workspace().members()[r].trace;
            for (SliceId sl = 0; sl < t.slices().size(); ++sl)
                if (t.classOf(sl) == SliceClass::Kernel && t.str(t.slices().name[sl]).starts_with("ncclDevKernel"))
                    ncclStarts[r].push_back(t.slices().start[sl] + t.baseTimeNs()
                                            - ranks.members()[0].trace->baseTimeNs());
            std::sort(ncclStarts[r].begin(), ncclStarts[r].end());
        }
        QCOMPARE(ncclStarts[0].size(), std::size_t(6));
        QCOMPARE(ncclStarts[1].size(), std::size_t(6));
        const auto rank0 = paths.analysis().analyzeSteps({}, 0);
        QCOMPARE(rank0.size(), std::size_t(3));
        checkAddsUp(rank0[2]);
        const TimeNs waited0 = ncclStarts[1][5] - ncclStarts[0][5]; // 1658.401 µs
        QCOMPARE(breakdownOf(rank0[2].path, PathKind::CollectiveWait), waited0);
        QCOMPARE(breakdownOf(rank0[0].path, PathKind::CollectiveWait), TimeNs(0)); // rank 0 arrives last
        const auto rank1 = paths.analysis().analyzeSteps({}, 1);
        checkAddsUp(rank1[0]);
        const TimeNs waited1 = ncclStarts[0][1] - ncclStarts[1][1];
        QCOMPARE(breakdownOf(rank1[0].path, PathKind::CollectiveWait), waited1);
    }

    // A copy call whose copy ends inside it, behind a 60 µs GEMM on the stream: from pageable
    // memory the call waits for the copy (and so for the GEMM before it); between device
    // buffers it returns at once, and the path stays on the CPU.
    void onlyBlockingCopiesWait_data()
    {
        QTest::addColumn<std::string>("copy");
        QTest::addColumn<bool>("blocks");
        QTest::newRow("pageable") << std::string("Memcpy HtoD (Pageable -> Device)") << true;
        QTest::newRow("device") << std::string("Memcpy DtoD (Device -> Device)") << false;
    }
    void onlyBlockingCopiesWait()
    {
        QFETCH(std::string, copy);
        QFETCH(bool, blocks);
        const auto s = onlyStep(
            traceOf(events(step(0, 100) + cpu("cuda_runtime", "cudaLaunchKernel", 5, 2, 1)
                           + cpu("cuda_runtime", "cudaMemcpyAsync", 60, 10, 2) + cpu("cpu_op", "aten::add", 72, 28)
                           + gpu("sgemm_big", 8, 60, 1) + gpu(copy, 68, 1, 2, 7, "gpu_memcpy"))));
        checkAddsUp(s);
        if (blocks) {
            QCOMPARE(breakdownOf(s.path, PathKind::Kernel), us(60));
            QCOMPARE(breakdownOf(s.path, PathKind::Memcpy), us(1));
            QCOMPARE(breakdownOf(s.path, PathKind::SyncWait), us(1)); // the copy ends at 69, the call at 70
            QVERIFY(hasSegment(s.path, PathKind::Kernel, "sgemm_big"));
        } else {
            QCOMPARE(breakdownOf(s.path, PathKind::Kernel), TimeNs(0));
            QCOMPARE(breakdownOf(s.path, PathKind::Launch), us(2 + 10)); // the launch, the whole copy call
            QCOMPARE(breakdownOf(s.path, PathKind::SyncWait), TimeNs(0));
        }
    }

    void badWhatIfsAreRejected()
    {
        std::string error;
        QVERIFY(!WhatIf::parse("kernel:sgemm", error));
        QVERIFY(!WhatIf::parse("warp:sgemm=1", error));
        QVERIFY(error.find("warp") != std::string::npos);
        QVERIFY(!WhatIf::parse("kernel:(=1", error));
        QVERIFY(!WhatIf::parse("kernel:x=-1", error));
        QVERIFY(!WhatIf::parse("kernel:x=nan", error));
        QVERIFY(!WhatIf::parse("category:cpu=1", error));
        QVERIFY(WhatIf::parse("category:sync_wait=0", error));
        QVERIFY(WhatIf::parse("op:a=b=0.5", error)); // the last '=' starts the factor
    }

    // A flow cycle and a GPU op before its launch: warnings, no hang, the path still adds up.
    void brokenInputNeverHangs()
    {
        const auto trace = traceOf(
            events(step(0, 50) + cpu("cuda_runtime", "cudaLaunchKernel", 20, 2, 1) + gpu("early", 5, 10, 1)
                   + R"({"ph":"s","cat":"fwdbwd","name":"fwdbwd","pid":100,"tid":100,"ts":20,"id":1},)"
                   + R"({"ph":"f","cat":"fwdbwd","name":"fwdbwd","pid":100,"tid":100,"ts":0,"id":1,"bp":"e"},)"));
        const auto s = onlyStep(trace);
        checkAddsUp(s);
        QVERIFY(s.warnings >= 1); // the launch edge into the past was dropped
    }

    // Equal-time nodes joined both ways (what zero-length ops handing off between two threads
    // give): Kahn's order stops at the cycle, the rest follows by time, the solve ends.
    void cycleInTheGraphIsCountedNotFollowed()
    {
        CriticalPathGraph g;
        g.source = g.addNode(0);
        g.sink = g.addNode(us(10));
        const auto a = g.addNode(us(5)), b = g.addNode(us(5));
        g.addEdge(g.source, a, us(5), PathKind::CpuOp, kNoIndex);
        g.addEdge(a, b, 0, PathKind::Other, kNoIndex);
        g.addEdge(b, a, 0, PathKind::Other, kNoIndex);
        g.addEdge(b, g.sink, us(5), PathKind::CpuOp, kNoIndex);
        g.finish();
        QCOMPARE(g.cycleNodes, std::size_t(3)); // a, b and the sink behind them
        QCOMPARE(g.topoOrder.size(), std::size_t(4));
        const auto solution = CriticalPathSolver::solve(g);
        QCOMPARE(solution.length, us(10));
        QCOMPARE(CriticalPathSolver::pathEdges(g, solution).size(), std::size_t(3)); // source, a, b, sink
    }

    // Two threads joined by fwdbwd flows (one of them broken: no end), each with a zero-length
    // op at 10 after a gap in which the other's ends: hand-offs both ways form a cycle.
    void flowCycleBetweenThreadsNeverHangs()
    {
        const std::string flows =
            R"({"ph":"s","cat":"fwdbwd","name":"fwdbwd","pid":100,"tid":100,"ts":2,"id":1},)"
            R"({"ph":"f","cat":"fwdbwd","name":"fwdbwd","pid":100,"tid":101,"ts":3,"id":1,"bp":"e"},)"
            R"({"ph":"s","cat":"fwdbwd","name":"fwdbwd","pid":100,"tid":101,"ts":3,"id":2},)"
            R"({"ph":"f","cat":"fwdbwd","name":"fwdbwd","pid":100,"tid":100,"ts":2,"id":2,"bp":"e"},)"
            R"({"ph":"s","cat":"fwdbwd","name":"fwdbwd","pid":100,"tid":101,"ts":10,"id":3},)";
        const auto s = onlyStep(traceOf(
            events(step(0, 20) + cpu("cpu_op", "aten::a1", 1, 4) + cpu("cpu_op", "aten::az", 10, 0)
                   + cpu("cpu_op", "aten::b1", 1, 3, -1, 101) + cpu("cpu_op", "aten::bz", 10, 0, -1, 101) + flows)));
        checkAddsUp(s);
        QCOMPARE(s.path.length, us(20));
        QVERIFY2(s.warnings >= 2, std::to_string(s.warnings).c_str()); // the nodes in the cycle
    }

    void fixturesAddUp_data()
    {
        QTest::addColumn<std::string>("fixture");
        for (const char* f : {"train_baseline", "train_optimized", "launchbound", "multistream", "mlp_ops",
                              "transformer", "ddp_rank0", "slowloader", "compiled", "cudagraphs", "cnn_amp", "lstm"})
            QTest::newRow(f) << std::string(f);
    }
    void fixturesAddUp()
    {
        QFETCH(std::string, fixture);
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace(fixture));
        const auto analysis = criticalPathOf(facts);
        const auto steps = analysis.analyzeSteps({whatIf("kernel:.=1"), whatIf("op:.=1"), whatIf("family:GEMM=1")});
        QCOMPARE(steps.size(), facts->stepCount());
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const auto& s = steps[i];
            checkAddsUp(s);
            if (facts->hasSteps()) {
                QCOMPARE(s.start, facts->windows.steps[i].start);
                QCOMPARE(s.end, facts->windows.steps[i].end);
                QCOMPARE(std::to_string(s.step), facts->windows.steps[i].name);
            }
            QCOMPARE(s.whatIf->length, s.path.length);
        }
    }

    // train_baseline is CPU-bound (its GPU is busy about half of each step): the path shows
    // the two cudaStreamSynchronize waits (the pageable copy's and loss.item()'s), the whole
    // pageable H2D copy, which the CPU waits for, and no fp32 sgemm: halving them changes
    // nothing, halving the optimizer's CPU time does.
    void trainBaselineShowsSyncsCopiesAndSgemm()
    {
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("train_baseline"));
        const Trace& trace = *facts->trace;
        const auto analysis = criticalPathOf(facts);
        const auto steps = analysis.analyzeSteps({whatIf("kernel:sgemm=0.5")});
        const auto optimizer = analysis.analyzeSteps({whatIf("op:^Optimizer\\.step=0.5")});
        QCOMPARE(steps.size(), std::size_t(3));
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const auto& s = steps[i];
            std::size_t syncs = 0, pageable = 0;
            TimeNs pageableTime = 0;
            for (const auto& seg : s.path.segments) {
                if (seg.kind == PathKind::SyncWait && seg.name == "cudaStreamSynchronize")
                    ++syncs;
                if (seg.kind == PathKind::Memcpy && seg.name.find("Pageable") != std::string::npos) {
                    ++pageable;
                    pageableTime += seg.duration;
                    QCOMPARE(seg.duration, trace.slices().duration[seg.item.slice]); // the whole copy
                }
            }
            QCOMPARE(syncs, std::size_t(2));
            QCOMPARE(pageable, std::size_t(1));
            const double copyShare = double(pageableTime) / double(s.path.length);
            QVERIFY2(copyShare > 0.06 && copyShare < 0.08, std::to_string(copyShare).c_str());
            QVERIFY(breakdownOf(s.path, PathKind::Kernel) < s.path.length / 1000);
            QCOMPARE(s.whatIf->length, s.path.length);
            QVERIFY(double(optimizer[i].whatIf->length) < 0.95 * double(s.path.length));
            const double host = double(breakdownOf(s.path, PathKind::CpuOp) + breakdownOf(s.path, PathKind::Launch));
            QVERIFY(host > 0.8 * double(s.path.length));
        }
    }

    // Where the CPU waits, the path goes through the wait into the GPU work: after the pageable
    // copy, the cudaStreamSynchronize that returns after it (5.0 µs later on step 3); at the
    // step's end, .item()'s DtoH copy, then its sync. No GEMM is on the measured path: no GEMM
    // runs while the CPU waits. With the CPU 5x faster (what-if) the step is GPU-bound and the
    // re-solved path holds every GEMM of the step (3.77 ms of fp32 GEMMs, 59 % of it), through
    // the same sync edges.
    void trainBaselineWaitsGoThroughTheGpu()
    {
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("train_baseline"));
        const Trace& trace = *facts->trace;
        const auto steps =
            criticalPathOf(facts).analyzeSteps({whatIf("category:cpu_op=0.2"), whatIf("category:other=0.2")});
        QCOMPARE(steps.size(), std::size_t(3));
        for (const auto& s : steps) {
            const auto& segs = s.path.segments;
            const auto copy = std::find_if(segs.begin(), segs.end(), [](const PathSegment& seg) {
                return seg.name == "Memcpy HtoD (Pageable -> Device)";
            });
            QVERIFY(copy != segs.end() && copy + 1 != segs.end());
            const PathSegment& sync = *(copy + 1);
            QCOMPARE(sync.kind, PathKind::SyncWait);
            QCOMPARE(sync.name, std::string("cudaStreamSynchronize"));
            QCOMPARE(sync.start, trace.slices().end(copy->item.slice));
            QCOMPARE(sync.start + sync.duration, trace.slices().end(sync.item.slice));
            QVERIFY(sync.duration > us(4) && sync.duration < us(6));
            // The step ends in .item(): its DtoH copy, then the sync returning after it.
            const auto dtoh = std::find_if(segs.begin(), segs.end(), [](const PathSegment& seg) {
                return seg.name == "Memcpy DtoH (Device -> Pinned)";
            });
            QVERIFY(dtoh != segs.end() && dtoh + 1 != segs.end());
            QCOMPARE((dtoh + 1)->kind, PathKind::SyncWait);
            QCOMPARE((dtoh + 1)->name, std::string("cudaStreamSynchronize"));
            QCOMPARE((dtoh + 1)->start, trace.slices().end(dtoh->item.slice));
            QVERIFY(s.end - ((dtoh + 1)->start + (dtoh + 1)->duration) < us(100)); // then the step's last µs
            // The measured path: no kernel, so no GEMM.
            QCOMPARE(breakdownOf(s.path, PathKind::Kernel), TimeNs(0));

            // Every GEMM kernel of the step (its GPU time from the trace) is on the what-if path.
            TimeNs gemmOnGpu = 0;
            for (SliceId k = 0; k < trace.slices().size(); ++k)
                if (trace.classOf(k) == SliceClass::Kernel && trace.slices().start[k] >= s.start
                    && trace.slices().start[k] < s.end && kernelFamily(trace.str(trace.slices().name[k])) == "GEMM")
                    gemmOnGpu += trace.slices().duration[k];
            TimeNs gemmOnPath = 0;
            for (const auto& seg : s.whatIf->segments)
                if (seg.kind == PathKind::Kernel && seg.family == "GEMM")
                    gemmOnPath += seg.duration;
            QVERIFY2(gemmOnGpu > us(3700) && gemmOnGpu < us(3800), std::to_string(gemmOnGpu).c_str());
            QCOMPARE(gemmOnPath, gemmOnGpu);
            const double share = double(gemmOnPath) / double(s.whatIf->length);
            QVERIFY2(share > 0.55 && share < 0.62, std::to_string(share).c_str());
            // .item()'s copy now waits for the GPU's queue (a kernel or the gap after one), not
            // for its launch, and the sync returns after it.
            const auto& wi = s.whatIf->segments;
            const auto wiCopy = std::find_if(wi.begin(), wi.end(), [](const PathSegment& seg) {
                return seg.name == "Memcpy DtoH (Device -> Pinned)";
            });
            QVERIFY(wiCopy != wi.begin() && wiCopy != wi.end() && wiCopy + 1 != wi.end());
            QVERIFY((wiCopy - 1)->kind == PathKind::Kernel || (wiCopy - 1)->kind == PathKind::GpuIdle);
            QCOMPARE((wiCopy + 1)->kind, PathKind::SyncWait);
        }
    }

    // launchbound: tiny kernels launched from Python; the path is on the CPU.
    void launchBoundFixtureIsMostlyCpu()
    {
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("launchbound"));
        for (const auto& s : criticalPathOf(facts).analyzeSteps()) {
            const TimeNs host = breakdownOf(s.path, PathKind::CpuOp) + breakdownOf(s.path, PathKind::Launch)
                + breakdownOf(s.path, PathKind::Other);
            QVERIFY2(double(host) > 0.9 * double(s.path.length), std::to_string(host).c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TstCriticalPath)
#include "tst_criticalpath.moc"
