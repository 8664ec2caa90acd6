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
        QCOMPARE(QString::fromStdString(distributedInfoJson(*info)),
                 QStringLiteral(R"({"backend": "nccl", "rank": 3, "world_size": 8, "local_rank": 1})"));
        QVERIFY(!distributedInfoFromEnvironment({"RANK=3"}));
        QVERIFY(!distributedInfoFromEnvironment({"RANK=2", "WORLD_SIZE=2"}));
        QVERIFY(!distributedInfoFromEnvironment({"RANK=x", "WORLD_SIZE=2"}));
        QVERIFY(!distributedInfoFromEnvironment({"RANKS=0", "WORLD_SIZE=2"}));
        QVERIFY(distributedInfoFromEnvironment({"RANK=0", "WORLD_SIZE=1"})->localRank == -1);
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
            QCOMPARE(info.value("backend", std::string()), std::string("nccl"));
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
        const Trace all = buildCollectedTrace(processes, {kBase, arena});
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
};

QTEST_GUILESS_MAIN(TestCollectedFile)
#include "tst_collectedfile.moc"
