// A collected trace written as kineto writes it and loaded back: every event class (ops,
// labels, runtime and driver calls, kernels, copies, memsets, syncs, CUPTI overhead, NVTX
// ranges and marks, GPU annotations, ac2g and fwdbwd flows) comes back with the same count;
// a rank's file carries kineto's distributedInfo, a merged file integer pids and each rank's
// info under distributedRanks.
#include "collector/host/distributedinfo.h"
#include "core/loading/loader.h"
#include "core/writing/writer.h"
#include "recordstream.h"

#include <QTest>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace ks;
using namespace ks::collector;
using namespace ks::collector::test;

namespace {

// Everything a collected PyTorch process can hold, in one step.
void recordAStep(Stream& s)
{
    using M = wire::Marker;
    s.send(h200());
    s.string(1, "cudaLaunchKernel_v7000");
    s.string(2, "_Z4gemmPfi");
    s.string(3, "cuLaunchKernel");
    s.string(4, "cudaMemcpyAsync_v3020");
    s.string(5, "cudaStreamSynchronize_v3020");
    s.string(11, "aten::mm, seq = 4, op_id = 10, sizes = [[8, 16], [16, 4]], input_op_ids = [(0,-1), (1,-1)]");
    s.string(12, "MmBackward0, seq = 4, op_id = 20, sizes = [[8, 4]], input_op_ids = [(19,0)]");
    s.string(13, "ProfilerStep#0, op_id = 1");
    s.string(14, "my range");
    s.string(15, "checkpoint");
    s.marker(1, M::Start, 100, 13);
    s.marker(2, M::Start, 110, 11);
    s.api(1, 120, 5);
    s.marker(2, M::End, 140);
    s.marker(3, M::Start, 150, 14);
    s.api(2, 160, 5, 3, 2); // a driver launch
    wire::Memcpy copy;
    copy.start = kBase + 200000;
    copy.end = copy.start + 8000;
    copy.bytes = 4096;
    copy.copyKind = 1;
    copy.stream = 7;
    copy.correlation = 3;
    s.api(3, 170, 4, 4);
    s.send(copy);
    wire::Memset set;
    set.start = kBase + 230000;
    set.end = set.start + 2000;
    set.bytes = 1024;
    set.stream = 7;
    set.correlation = 4;
    s.api(4, 175, 3, 1);
    s.send(set);
    s.marker(3, M::End, 180);
    s.marker(4, M::Instant, 185, 15);
    s.api(5, 190, 60, 5);
    wire::Sync sync;
    sync.start = kBase + 195000;
    sync.end = kBase + 250000;
    sync.type = 3;
    sync.stream = 7;
    sync.correlation = 5;
    s.send(sync);
    s.setThread(kTid + 1); // the autograd thread
    s.marker(5, M::Start, 260, 12);
    s.api(6, 270, 5);
    s.marker(5, M::End, 290);
    s.setThread(kTid);
    s.marker(1, M::End, 300);
    s.kernel(1, 130, 20);
    s.kernel(2, 170, 20);
    s.kernel(6, 280, 20);
    wire::Overhead overhead;
    overhead.start = kBase + 310000;
    overhead.end = overhead.start + 5000;
    overhead.kind = 1;
    overhead.threadId = kTid;
    s.send(overhead);
    s.send(wire::Goodbye{});
}

struct Counts {
    std::map<SliceClass, std::size_t> slices;
    std::map<std::string, std::size_t> flows;
    std::size_t instants = 0;
    bool operator==(const Counts&) const = default;
};

Counts countsOf(const Trace& t)
{
    Counts c;
    for (SliceId s = 0; s < t.slices().size(); ++s)
        ++c.slices[t.classOf(s)];
    for (const auto& f : t.flows())
        ++c.flows[std::string(t.str(f.category))];
    c.instants = t.instants().size();
    return c;
}

std::shared_ptr<const Trace> writtenAndLoaded(const Trace& trace, bool normalizeIds)
{
    std::ostringstream json;
    TraceWriteOptions options;
    options.normalizeIds = normalizeIds;
    if (!writeTraceJson(trace, json, options).ok)
        return nullptr;
    return loadTraceFromMemory(json.str(), "collected").trace;
}

std::string writtenText(const Trace& trace)
{
    std::ostringstream json;
    if (!writeTraceJson(trace, json).ok)
        return {};
    return json.str();
}

nlohmann::json metadata(const Trace& t, std::string_view key)
{
    const std::string* raw = t.metadataValue(key);
    return raw ? nlohmann::json::parse(*raw, nullptr, false) : nlohmann::json();
}

} // namespace

class TestCollectedFile : public QObject {
    Q_OBJECT
private slots:
    void environmentGivesTheRank()
    {
        const auto info = distributedInfoFromEnvironment({"PATH=/bin", "RANK=3", "WORLD_SIZE=8", "LOCAL_RANK=1"});
        QVERIFY(info);
        QCOMPARE(info->rank, 3);
        QCOMPARE(info->worldSize, 8);
        QCOMPARE(info->localRank, 1);
        // The environment does not say which backend: none until the rank's collectives do.
        QCOMPARE(distributedInfoJson(*info), std::string(R"({"rank": 3, "world_size": 8, "local_rank": 1})"));
        DistributedInfo gloo = *info;
        gloo.backend = "gloo";
        QCOMPARE(distributedInfoJson(gloo, 42),
                 std::string(R"({"pid": 42, "backend": "gloo", "rank": 3, "world_size": 8, "local_rank": 1})"));
        QVERIFY(!distributedInfoFromEnvironment({"RANK=3"}));
        QVERIFY(!distributedInfoFromEnvironment({"RANK=2", "WORLD_SIZE=2"}));
        QVERIFY(!distributedInfoFromEnvironment({"RANK=x", "WORLD_SIZE=2"}));
        QVERIFY(!distributedInfoFromEnvironment({"RANKS=0", "WORLD_SIZE=2"}));
        QVERIFY(distributedInfoFromEnvironment({"RANK=0", "WORLD_SIZE=1"})->localRank == -1);
    }

    void backendFromTheCollectives()
    {
        QCOMPARE(collectiveBackend("nccl:all_reduce"), std::string_view("nccl"));
        QCOMPARE(collectiveBackend("gloo:broadcast"), std::string_view("gloo"));
        QCOMPARE(collectiveBackend("mpi:barrier"), std::string_view("mpi"));
        QCOMPARE(collectiveBackend("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
                 std::string_view("nccl"));
        QCOMPARE(collectiveBackend("record_param_comms"), std::string_view());
        QCOMPARE(collectiveBackend("nccl:"), std::string_view("nccl"));
        QCOMPARE(collectiveBackend("gloo"), std::string_view());
        QCOMPARE(collectiveBackend("aten::mm"), std::string_view());

        // A rank whose DDP all-reduce ran on gloo (its c10d range came as an NVTX range).
        Stream s;
        s.send(h200());
        s.string(1, "gloo:all_reduce");
        s.marker(1, wire::Marker::Start, 100, 1);
        s.marker(1, wire::Marker::End, 200);
        s.send(wire::Goodbye{});
        s.recorder().setDistributedInfo(DistributedInfo{0, 2, 0});
        const auto loaded = writtenAndLoaded(s.trace(), true);
        QVERIFY(loaded);
        QCOMPARE(metadata(*loaded, "distributedInfo").value("backend", std::string()), std::string("gloo"));
    }

    void everyEventClassComesBack()
    {
        Stream s;
        recordAStep(s);
        s.recorder().setDistributedInfo(DistributedInfo{1, 2, 1});
        const Trace original = s.trace();
        const Counts before = countsOf(original);
        // What the step holds, counted from the records above.
        QCOMPARE(before.slices.at(SliceClass::CpuOp), std::size_t(2)); // aten::mm, MmBackward0
        QCOMPARE(before.slices.at(SliceClass::UserAnnotation), std::size_t(2)); // ProfilerStep#0, my range
        QCOMPARE(before.slices.at(SliceClass::CudaRuntime), std::size_t(5));
        QCOMPARE(before.slices.at(SliceClass::CudaDriver), std::size_t(1));
        QCOMPARE(before.slices.at(SliceClass::Kernel), std::size_t(3));
        QCOMPARE(before.slices.at(SliceClass::Memcpy), std::size_t(1));
        QCOMPARE(before.slices.at(SliceClass::Memset), std::size_t(1));
        QCOMPARE(before.slices.at(SliceClass::Overhead), std::size_t(1));
        QVERIFY(before.slices.at(SliceClass::GpuUserAnnotation) >= 2);
        QCOMPARE(before.flows.at("ac2g"), std::size_t(6)); // to 3 kernels, the copy, the memset, the sync
        QCOMPARE(before.flows.at("fwdbwd"), std::size_t(1)); // aten::mm to MmBackward0
        QCOMPARE(before.instants, std::size_t(1));

        for (const bool normalize : {false, true}) {
            const auto loaded = writtenAndLoaded(original, normalize);
            QVERIFY(loaded);
            QVERIFY2(countsOf(*loaded) == before, normalize ? "normalized" : "as recorded");
            const auto info = metadata(*loaded, "distributedInfo");
            QCOMPARE(info.value("rank", -1), 1);
            QCOMPARE(info.value("world_size", -1), 2);
            QVERIFY2(!info.contains("backend"), "the step ran no collective");
        }
    }

    // A live view's snapshots, each copying only the records that arrived since the one
    // before and adding only those to its builder (LiveTraceBuilder), are the one-shot build of
    // everything recorded so far, after every single record of a step with every event class
    // (op ranges ending after the calls they give an External id, kernels after their
    // launches, GPU annotations that widen as kernels come): same counts, and the same file
    // written, byte for byte (slices, flows, names, order).
    void liveSnapshotsEqualOneShotBuilds()
    {
        Stream s;
        std::vector<RecordedProcess> live(1);
        LiveTraceBuilder builder;
        int snapshots = 0;
        s.afterEachRecord = [&] {
            live.front().catchUp(s.recorder().data());
            const Trace snapshot = builder.build(live, {kBase, s.arena(), {}});
            const Trace oneShot = s.trace();
            QCOMPARE(snapshot.slices().size(),
                     s.recorder().data().slices.size()
                         + std::size_t(countsOf(oneShot).slices[SliceClass::GpuUserAnnotation]));
            QVERIFY(countsOf(snapshot) == countsOf(oneShot));
            QCOMPARE(writtenText(snapshot), writtenText(oneShot));
            ++snapshots;
        };
        recordAStep(s);
        s.recorder().connectionClosed(); // after GOODBYE: state Finished
        s.afterEachRecord();
        QCOMPARE(snapshots, 35); // the 34 records of recordAStep, and the close
        const Counts last = countsOf(buildCollectedTrace(live, {kBase, s.arena(), {}}));
        QCOMPARE(last.flows.at("ac2g"), std::size_t(6));
        QCOMPARE(last.flows.at("fwdbwd"), std::size_t(1));
        QCOMPARE(last.slices.at(SliceClass::Kernel), std::size_t(3));
    }

    // collect writes its traces without re-validating their args (TraceWriteOptions::strictText):
    // the collector's own text is strict JSON, so the file is the same byte for byte.
    void strictTextWritesTheSameFile()
    {
        auto arena = std::make_shared<TextArena>();
        Stream a(100, arena), b(200, arena);
        recordAStep(a);
        recordAStep(b);
        const Trace one = a.trace();
        const Trace both = buildCollectedTrace({a.recorder().data(), b.recorder().data()}, {kBase, arena, {}});
        for (const Trace* trace : {&one, &both}) {
            for (const bool normalize : {false, true}) {
                std::ostringstream checked, trusted;
                TraceWriteOptions options;
                options.normalizeIds = normalize;
                QVERIFY(writeTraceJson(*trace, checked, options).ok);
                options.strictText = true;
                QVERIFY(writeTraceJson(*trace, trusted, options).ok);
                QVERIFY(checked.str().size() > 1000);
                QCOMPARE(trusted.str(), checked.str());
                QVERIFY(nlohmann::json::accept(trusted.str()));
            }
        }
    }

    // Two ranks and their launcher merged: integer pids everywhere, no file-wide
    // distributedInfo (the file is not one rank), each rank's under distributedRanks.
    void mergedRanksKeepTheirInfo()
    {
        auto arena = std::make_shared<TextArena>();
        Stream launcher(100, arena), rank0(200, arena), rank1(300, arena);
        for (Stream* s : {&launcher, &rank0, &rank1})
            recordAStep(*s);
        rank0.recorder().setDistributedInfo(DistributedInfo{0, 2, 0});
        rank1.recorder().setDistributedInfo(DistributedInfo{1, 2, 1});
        std::vector<RecordedProcess> processes{launcher.recorder().data(), rank0.recorder().data(),
                                               rank1.recorder().data()};
        const Counts one = countsOf(rank0.trace());
        QVERIFY(!rank0.trace().metadataValue("distributedRanks"));
        const Trace all = buildCollectedTrace(processes, {kBase, arena, {}});
        const auto loaded = writtenAndLoaded(all, true);
        QVERIFY(loaded);
        for (const auto& p : loaded->processes())
            QVERIFY2(!p.pid.isText, "every pid is an integer");
        QVERIFY(!loaded->metadataValue("distributedInfo"));
        const auto ranks = metadata(*loaded, "distributedRanks");
        QVERIFY(ranks.is_array());
        QCOMPARE(ranks.size(), std::size_t(2));
        QCOMPARE(ranks[0].value("pid", 0), 200);
        QCOMPARE(ranks[0].value("rank", -1), 0);
        QCOMPARE(ranks[1].value("pid", 0), 300);
        QCOMPARE(ranks[1].value("rank", -1), 1);
        QCOMPARE(ranks[1].value("world_size", -1), 2);
        const Counts three = countsOf(*loaded);
        for (const auto& [cls, n] : one.slices)
            QCOMPARE(three.slices.at(cls), 3 * n);
        for (const auto& [category, n] : one.flows)
            QCOMPARE(three.flows.at(category), 3 * n);
        QCOMPARE(three.instants, 3 * one.instants);
    }

    // Merged ranks on GPUs of their own keep kineto's GPU rows (pid = device index); a GPU
    // that two processes used gets one numbered process per process, labelled with the GPU.
    void mergedGpuRowsAsKinetoWritesThem()
    {
        auto arena = std::make_shared<TextArena>();
        Stream a(200, arena), b(300, arena), c(400, arena);
        const std::uint32_t deviceOf[] = {0, 1, 1};
        Stream* streams[] = {&a, &b, &c};
        for (int i = 0; i < 3; ++i) {
            Stream& s = *streams[i];
            s.send(h200());
            s.string(1, "cudaLaunchKernel_v7000");
            s.string(2, "_Z4gemmPfi");
            s.api(1, 100, 5);
            s.kernel(1, 110, 20, 7, 2, deviceOf[i]);
            s.send(wire::Goodbye{});
        }
        const Trace all =
            buildCollectedTrace({a.recorder().data(), b.recorder().data(), c.recorder().data()}, {kBase, arena, {}});
        const auto loaded = writtenAndLoaded(all, true);
        QVERIFY(loaded);
        std::map<int, std::vector<std::int64_t>> pidsOfDevice;
        for (const auto& p : loaded->processes()) {
            QVERIFY(!p.pid.isText);
            if (p.isDevice)
                pidsOfDevice[p.deviceIndex].push_back(p.pid.number);
        }
        QCOMPARE(pidsOfDevice[0], std::vector<std::int64_t>{0});
        QCOMPARE(pidsOfDevice[1].size(), std::size_t(2));
        QVERIFY(pidsOfDevice[1][0] != pidsOfDevice[1][1]);
        QCOMPARE(loaded->flows().size(), std::size_t(3)); // each launch still reaches its kernel
        for (const auto& f : loaded->flows()) {
            const auto& from = loaded->processes()[loaded->tracks()[loaded->trackOf(f.from)].process];
            const auto& to = loaded->processes()[loaded->tracks()[loaded->trackOf(f.to)].process];
            QCOMPARE(to.deviceIndex, from.pid.number == 200 ? 0 : 1);
        }
    }
};

QTEST_GUILESS_MAIN(TestCollectedFile)
#include "tst_collectedfile.moc"
