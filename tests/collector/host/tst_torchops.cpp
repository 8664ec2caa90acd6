// PyTorch operators from emit_nvtx ranges: every range form of collector-notes §11 parsed,
// ops and labels made into kineto cpu_op / user_annotation events with kineto's args,
// External ids passed to the calls and kernels they launched (so the Operators table's
// device columns fill), fwdbwd arrows by sequence number, text that does not parse kept as
// an NVTX range and counted, and the written file read back with the same links.
#include "collector/host/torchops.h"
#include "core/gpu/gpumetrics.h"
#include "core/loading/loader.h"
#include "core/stats/operatortable.h"
#include "core/writing/writer.h"
#include "recordstream.h"

#include <QTest>

#include <nlohmann/json.hpp>
#include <sstream>

using namespace ks;
using namespace ks::collector;
using namespace ks::collector::test;

namespace {

constexpr std::int64_t kAutogradTid = 5000;

SliceId onlySlice(const Trace& t, std::string_view name, SliceClass cls)
{
    SliceId found = kNoSlice;
    for (const SliceId s : slicesNamed(t, name)) {
        if (t.classOf(s) == cls) {
            if (found != kNoSlice)
                return kNoSlice; // more than one
            found = s;
        }
    }
    return found;
}

const OperatorRow* rowNamed(const OperatorTable& table, std::string_view name, bool device = false)
{
    for (const auto& row : table.rows) {
        if (row.name == name && row.isDevice == device)
            return &row;
    }
    return nullptr;
}

// One training step as emit_nvtx(record_shapes=True) reports it: a Linear forward on the
// main thread (aten::linear > aten::t, aten::addmm launching a GEMM), a record_function
// label around an optimizer launch, and the backward on the autograd thread with the
// engine's evaluate_function wrappers; plus a plain NVTX range and a malformed op text.
class TrainingStep {
public:
    TrainingStep()
    {
        m_s.send(h200());
        m_s.string(1, "cudaLaunchKernel_v7000");
        m_s.string(2, "_Z4gemmPfi");
        m_s.string(3, "_Z3sgdPf");
        m_s.string(11, "aten::linear, seq = 10, op_id = 1, sizes = [[8, 16], [4, 16], [4]], input_op_ids = []");
        m_s.string(12, "aten::t, seq = 10, op_id = 2, sizes = [[4, 16]], input_op_ids = [(0,-1)]");
        m_s.string(13,
                   "aten::addmm, seq = 11, op_id = 3, sizes = [[4], [8, 16], [16, 4], [], []], "
                   "input_op_ids = [(0,-1), (1,0), (2,0)]");
        m_s.string(14, "Optimizer.step#SGD.step, op_id = 30");
        m_s.string(15, "my nvtx range");
        m_s.string(16, "aten::bad, seq = x, op_id = 31");
        m_s.string(21, "autograd::engine::evaluate_function: AddmmBackward0, op_id = 20");
        m_s.string(22, "AddmmBackward0, seq = 11, op_id = 21, sizes = [[8, 4]], input_op_ids = [(3,0)]");
        m_s.string(23, "aten::mm, op_id = 22, sizes = [[8, 4], [4, 16]], input_op_ids = [(21,0)]");
        m_s.string(24, "autograd::engine::evaluate_function: TBackward0, op_id = 23");
        m_s.string(25, "TBackward0, seq = 10, op_id = 24, sizes = [[16, 4]], input_op_ids = [(23,0)]");
        using M = wire::Marker;
        // main thread, forward
        m_s.marker(1, M::Start, 100, 11);
        m_s.marker(2, M::Start, 105, 12);
        m_s.marker(2, M::End, 110);
        m_s.marker(3, M::Start, 120, 13);
        m_s.api(1, 130, 5);
        m_s.marker(3, M::End, 190);
        m_s.marker(1, M::End, 200);
        m_s.api(2, 300, 5); // outside every op
        m_s.marker(4, M::Start, 600, 14);
        m_s.api(4, 610, 5);
        m_s.marker(4, M::End, 700);
        m_s.marker(5, M::Start, 710, 15);
        m_s.marker(5, M::End, 720);
        m_s.marker(6, M::Start, 730, 16);
        m_s.marker(6, M::End, 740);
        // autograd thread, backward; its buffer arrives after the GPU records
        m_s.kernel(1, 150, 20);
        m_s.kernel(2, 310, 10);
        m_s.kernel(3, 430, 15);
        m_s.kernel(4, 620, 5, 7, 3);
        m_s.setThread(kAutogradTid);
        m_s.marker(10, M::Start, 400, 21);
        m_s.marker(11, M::Start, 405, 22);
        m_s.marker(12, M::Start, 410, 23);
        m_s.api(3, 420, 5);
        m_s.marker(12, M::End, 450);
        m_s.marker(11, M::End, 495);
        m_s.marker(10, M::End, 500);
        m_s.marker(13, M::Start, 500, 24);
        m_s.marker(14, M::Start, 502, 25);
        m_s.marker(14, M::End, 518);
        m_s.marker(13, M::End, 520);
        m_s.send(wire::Goodbye{});
    }
    Trace trace() const { return m_s.trace(); }
    const RecordedProcess& data() { return m_s.recorder().data(); }

private:
    Stream m_s;
};

} // namespace

class TestTorchOps : public QObject {
    Q_OBJECT
private slots:
    void parsesEveryRangeForm_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<int>("result");
        QTest::addColumn<std::string>("name");
        QTest::addColumn<std::int64_t>("sequence");
        QTest::addColumn<std::int64_t>("opId");
        QTest::addColumn<std::string>("inputDims");
        QTest::addColumn<bool>("backward");
        QTest::addColumn<bool>("label");
        const int op = int(NvtxOpParse::Op), malformed = int(NvtxOpParse::Malformed), plain = int(NvtxOpParse::NotAnOp);
        QTest::newRow("forward, shapes") << std::string(
            "aten::transpose, seq = 0, op_id = 2, sizes = [[16, 128, 512], [], []], input_op_ids = [(0,-1), (1,0)]")
                                         << op << std::string("aten::transpose") << std::int64_t(0) << std::int64_t(2)
                                         << std::string("[[16,128,512],[],[]]") << false << false;
        QTest::newRow("forward, no shapes")
            << std::string("aten::mm, seq = 7, op_id = 9") << op << std::string("aten::mm") << std::int64_t(7)
            << std::int64_t(9) << std::string() << false << false;
        QTest::newRow("no sequence number")
            << std::string("aten::as_strided, op_id = 3, sizes = [[16, 128, 512], [], [], []], input_op_ids = [(2,0)]")
            << op << std::string("aten::as_strided") << std::int64_t(-1) << std::int64_t(3)
            << std::string("[[16,128,512],[],[],[]]") << false << false;
        QTest::newRow("backward") << std::string(
            "SumBackward0, seq = 45, op_id = 138, sizes = [[]], input_op_ids = [(133,0)]")
                                  << op << std::string("SumBackward0") << std::int64_t(45) << std::int64_t(138)
                                  << std::string("[[]]") << true << false;
        QTest::newRow("engine wrapper") << std::string("autograd::engine::evaluate_function: SumBackward0, op_id = 137")
                                        << op << std::string("autograd::engine::evaluate_function: SumBackward0")
                                        << std::int64_t(-1) << std::int64_t(137) << std::string() << true << false;
        QTest::newRow("label") << std::string("Optimizer.zero_grad#AdamW.zero_grad, op_id = 1") << op
                               << std::string("Optimizer.zero_grad#AdamW.zero_grad") << std::int64_t(-1)
                               << std::int64_t(1) << std::string() << false << true;
        QTest::newRow("step label") << std::string("ProfilerStep#3, op_id = 40, sizes = []") << op
                                    << std::string("ProfilerStep#3") << std::int64_t(-1) << std::int64_t(40)
                                    << std::string("[]") << false << true;
        QTest::newRow("label with a comma")
            << std::string("fwd, layer 1, op_id = 8") << op << std::string("fwd, layer 1") << std::int64_t(-1)
            << std::int64_t(8) << std::string() << false << true;
        QTest::newRow("plain nvtx") << std::string("my range") << plain << std::string() << std::int64_t(-1)
                                    << std::int64_t(-1) << std::string() << false << false;
        QTest::newRow("nccl nvtx") << std::string("ncclAllGather") << plain << std::string() << std::int64_t(-1)
                                   << std::int64_t(-1) << std::string() << false << false;
        for (const char* bad : {"aten::mm, seq = x, op_id = 3", "aten::mm, op_id = 3, sizes = [[1, 2]",
                                "aten::mm, op_id = 3, extra", ", op_id = 3", "aten::mm, op_id = -4",
                                "aten::mm, op_id = 3, sizes = [[1,, 2]]", "aten::mm, op_id = 99999999999999999999"})
            QTest::newRow(bad) << std::string(bad) << malformed << std::string() << std::int64_t(-1) << std::int64_t(-1)
                               << std::string() << false << false;
    }

    void parsesEveryRangeForm()
    {
        QFETCH(std::string, text);
        QFETCH(int, result);
        const std::string utf8 = text;
        NvtxOp op;
        QCOMPARE(int(parseNvtxOp(utf8, op)), result);
        if (result != int(NvtxOpParse::Op))
            return;
        QFETCH(std::string, name);
        QFETCH(std::int64_t, sequence);
        QFETCH(std::int64_t, opId);
        QFETCH(std::string, inputDims);
        QFETCH(bool, backward);
        QFETCH(bool, label);
        QCOMPARE(std::string(op.name), name);
        QCOMPARE(std::int64_t(op.sequence), sequence);
        QCOMPARE(std::int64_t(op.opId), opId);
        QCOMPARE(op.inputDims, inputDims);
        QCOMPARE(op.backward, backward);
        QCOMPARE(op.label, label);
    }

    void rangesBecomeKinetoOps()
    {
        TrainingStep step;
        const Trace t = step.trace();
        QCOMPARE(step.data().counts.torchOps, std::uint64_t(9));
        QCOMPARE(step.data().counts.ranges, std::uint64_t(2)); // the plain and the malformed range
        QCOMPARE(step.data().counts.malformedOpRanges, std::uint64_t(1));
        QCOMPARE(t.diagnostics().count("nvtx-op-unparsed"), std::uint64_t(1));
        // Not shown twice: no slice keeps the raw emit_nvtx text.
        for (SliceId s = 0; s < t.slices().size(); ++s) {
            const auto name = t.str(t.slices().name[s]);
            if (name.find(", op_id = ") != std::string_view::npos)
                QCOMPARE(name, std::string_view("aten::bad, seq = x, op_id = 31"));
        }
        QCOMPARE(slicesNamed(t, "aten::addmm").size(), std::size_t(1));
        // Nor does the recording or the model keep it as a string: a recording has one such
        // text per op (its op_id), a live view copies the recording and the model's strings.
        for (const auto& name : step.data().names) {
            if (name.find(", op_id = ") != std::string::npos)
                QCOMPARE(name, std::string("aten::bad, seq = x, op_id = 31"));
        }
        QCOMPARE(t.strings().find("aten::t, seq = 10, op_id = 2, sizes = [[4, 16]], input_op_ids = [(0,-1)]"),
                 ~StringId(0));
        QVERIFY(t.strings().find("aten::t") != ~StringId(0));

        const SliceId addmm = onlySlice(t, "aten::addmm", SliceClass::CpuOp);
        QVERIFY(addmm != kNoSlice);
        const auto args = argsOf(t, addmm);
        QCOMPARE(args["External id"].get<int>(), 3);
        QCOMPARE(args["Sequence number"].get<int>(), 11);
        QCOMPARE(args["Fwd thread id"].get<int>(), 0);
        QCOMPARE(args["Input Dims"].dump(), std::string("[[4],[8,16],[16,4],[],[]]"));
        QCOMPARE(t.slices().externalId[addmm], std::int64_t(3));

        const SliceId wrapper = onlySlice(t, "autograd::engine::evaluate_function: AddmmBackward0", SliceClass::CpuOp);
        QVERIFY(wrapper != kNoSlice);
        QCOMPARE(argsOf(t, wrapper)["Sequence number"].get<int>(), 11); // from the node it wraps
        QCOMPARE(argsOf(t, wrapper)["Fwd thread id"].get<int>(), 1);
        const SliceId backward = onlySlice(t, "AddmmBackward0", SliceClass::CpuOp);
        QCOMPARE(t.tracks()[t.trackOf(backward)].tid, JsonId::fromNumber(kAutogradTid));
        QCOMPARE(t.rowOf(backward).depth, std::uint16_t(1));
        const SliceId mm = onlySlice(t, "aten::mm", SliceClass::CpuOp);
        QCOMPARE(t.rowOf(mm).depth, std::uint16_t(2));
        QVERIFY(!argsOf(t, mm).contains("Sequence number"));

        const SliceId label = onlySlice(t, "Optimizer.step#SGD.step", SliceClass::UserAnnotation);
        QVERIFY(label != kNoSlice);
        QCOMPARE(argsOf(t, label)["External id"].get<int>(), 30);
        const SliceId projected = onlySlice(t, "Optimizer.step#SGD.step", SliceClass::GpuUserAnnotation);
        QVERIFY(projected != kNoSlice);
        QCOMPARE(t.slices().externalId[projected], std::int64_t(30));
        QCOMPARE(onlySlice(t, "aten::addmm", SliceClass::GpuUserAnnotation), kNoSlice); // ops are not projected
        QVERIFY(onlySlice(t, "my nvtx range", SliceClass::UserAnnotation) != kNoSlice);
        QVERIFY(onlySlice(t, "aten::bad, seq = x, op_id = 31", SliceClass::UserAnnotation) != kNoSlice);
    }

    void externalIdsReachCallsAndKernels()
    {
        const Trace t = TrainingStep().trace();
        std::map<std::int64_t, std::int64_t> externalOfKernelCorrelation, externalOfCallCorrelation;
        for (SliceId s = 0; s < t.slices().size(); ++s) {
            if (t.classOf(s) == SliceClass::Kernel)
                externalOfKernelCorrelation[t.slices().correlation[s]] = t.slices().externalId[s];
            if (t.classOf(s) == SliceClass::CudaRuntime)
                externalOfCallCorrelation[t.slices().correlation[s]] = t.slices().externalId[s];
        }
        // innermost op: the call at 130 us is in aten::addmm (inside aten::linear)
        const std::map<std::int64_t, std::int64_t> expected{{1, 3}, {2, kNoId}, {3, 22}, {4, 30}};
        QCOMPARE(externalOfCallCorrelation, expected);
        QCOMPARE(externalOfKernelCorrelation, expected);

        // The Operators table credits each op with the GPU time of what it launched.
        const OperatorTable table = computeOperatorTable(t);
        QCOMPARE(rowNamed(table, "aten::addmm")->selfDevice, TimeNs(20000));
        QCOMPARE(rowNamed(table, "aten::linear")->deviceTotal, TimeNs(20000));
        QCOMPARE(rowNamed(table, "aten::linear")->selfDevice, TimeNs(0));
        QCOMPARE(rowNamed(table, "aten::mm")->selfDevice, TimeNs(15000));
        QCOMPARE(rowNamed(table, "AddmmBackward0")->deviceTotal, TimeNs(15000));
        QCOMPARE(rowNamed(table, "autograd::engine::evaluate_function: AddmmBackward0")->deviceTotal, TimeNs(15000));
        QCOMPARE(rowNamed(table, "Optimizer.step#SGD.step")->deviceTotal, TimeNs(5000));
        QCOMPARE(rowNamed(table, "Optimizer.step#SGD.step", true)->calls, std::uint64_t(1)); // its GPU side
        QCOMPARE(rowNamed(table, "aten::t")->calls, std::uint64_t(1));
        OperatorTableOptions byShape;
        byShape.groupByInputShapes = true;
        const OperatorTable shaped = computeOperatorTable(t, byShape);
        bool mmShape = false;
        for (const auto& row : shaped.rows)
            mmShape |= row.name == "aten::mm" && row.inputShapes == "[[8, 4], [4, 16]]";
        QVERIFY(mmShape);
    }

    // kineto's pairing: the forward op with the sequence number that started last (aten::t
    // inside aten::linear, both seq 10) -> the backward node that ended first (TBackward0,
    // not its evaluate_function wrapper).
    void forwardOpsLinkToBackwardOps()
    {
        const Trace t = TrainingStep().trace();
        std::vector<std::pair<std::string, std::string>> links;
        for (const auto& flow : t.flows()) {
            if (t.str(flow.category) == "fwdbwd")
                links.emplace_back(t.str(t.slices().name[flow.from]), t.str(t.slices().name[flow.to]));
        }
        std::sort(links.begin(), links.end());
        const std::vector<std::pair<std::string, std::string>> expected{{"aten::addmm", "AddmmBackward0"},
                                                                        {"aten::t", "TBackward0"}};
        QCOMPARE(links, expected);
    }

    void writtenTraceKeepsOpsAndLinks()
    {
        const Trace original = TrainingStep().trace();
        std::ostringstream out;
        QVERIFY(writeTraceJson(original, out).ok);
        const auto doc = nlohmann::json::parse(out.str());
        std::map<std::string, int> counts;
        for (const auto& e : doc["traceEvents"]) {
            const std::string key = e.value("ph", "") + "/" + e.value("cat", "");
            ++counts[key];
            if (e.value("cat", "") == "cuda_runtime" && e["args"]["correlation"] == 1)
                QCOMPARE(e["args"]["External id"].get<int>(), 3);
            if (e.value("cat", "") == "kernel" && e["args"]["correlation"] == 3)
                QCOMPARE(e["args"]["External id"].get<int>(), 22);
            if (e.value("cat", "") == "kernel" && e["args"]["correlation"] == 2)
                QVERIFY(!e["args"].contains("External id"));
        }
        QCOMPARE(counts["X/cpu_op"], 8);
        QCOMPARE(counts["X/user_annotation"], 3); // the label, the plain range, the malformed one
        QCOMPARE(counts["s/fwdbwd"], 2);
        QCOMPARE(counts["f/fwdbwd"], 2);

        const auto loaded = loadTraceFromMemory(out.str(), "collected");
        QVERIFY(loaded.ok());
        const OperatorTable before = computeOperatorTable(original);
        const OperatorTable after = computeOperatorTable(*loaded.trace);
        QCOMPARE(after.rows.size(), before.rows.size());
        for (std::size_t i = 0; i < before.rows.size(); ++i) {
            QCOMPARE(after.rows[i].name, before.rows[i].name);
            QCOMPARE(after.rows[i].calls, before.rows[i].calls);
            QCOMPARE(after.rows[i].selfDevice, before.rows[i].selfDevice);
            QCOMPARE(after.rows[i].deviceTotal, before.rows[i].deviceTotal);
        }
        std::size_t fwdbwd = 0;
        for (const auto& flow : loaded.trace->flows())
            fwdbwd += loaded.trace->str(flow.category) == "fwdbwd";
        QCOMPARE(fwdbwd, std::size_t(2));
    }

    // --step-marker: the label (or plain NVTX range) opened once per iteration becomes
    // ProfilerStep#0, #1, ... and the GPU summary's steps window follows them.
    void stepMarkerMakesSteps()
    {
        Stream s;
        s.recorder().setStepMarker("train_step");
        s.send(h200());
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z4gemmPfi");
        s.string(11, "train_step, op_id = 7");
        s.string(12, "train_step");
        s.string(13, "evaluate");
        using M = wire::Marker;
        s.marker(1, M::Start, 1000, 11);
        s.api(1, 1010, 5);
        s.marker(1, M::End, 1100);
        s.marker(2, M::Start, 1100, 12);
        s.api(2, 1110, 5);
        s.marker(2, M::End, 1200);
        s.marker(3, M::Start, 1200, 13);
        s.marker(3, M::End, 1300);
        s.kernel(1, 1020, 50);
        s.kernel(2, 1120, 50);
        const Trace t = s.trace();
        QCOMPARE(onlySlice(t, "ProfilerStep#0", SliceClass::UserAnnotation) != kNoSlice, true);
        QCOMPARE(onlySlice(t, "ProfilerStep#1", SliceClass::UserAnnotation) != kNoSlice, true);
        QCOMPARE(slicesNamed(t, "train_step").size(), std::size_t(0));
        QCOMPARE(slicesNamed(t, "evaluate").size(), std::size_t(1));
        const auto gpus = gpu::analyzeGpus(t);
        QCOMPARE(gpus.windows.hasProfilerSteps, true);
        QCOMPARE(gpus.windows.steps.size(), std::size_t(2));
        QCOMPARE(gpus.windows.stepsStart, TimeNs(1000000));
    }

    // torch.profiler's profile.step() opens record_function("ProfilerStep#N") scopes; under
    // emit_nvtx they arrive as label ranges and are the GPU summary's steps, with kineto's names.
    void profilerStepLabelsAreSteps()
    {
        Stream s;
        s.send(h200());
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z4gemmPfi");
        s.string(11, "ProfilerStep#4, op_id = 100");
        s.string(12, "ProfilerStep#5, op_id = 200");
        s.string(13, "aten::mm, seq = 3, op_id = 101, sizes = [[8, 16], [16, 4]], input_op_ids = []");
        using M = wire::Marker;
        s.marker(1, M::Start, 1000, 11);
        s.marker(2, M::Start, 1010, 13);
        s.api(1, 1020, 5);
        s.marker(2, M::End, 1030);
        s.marker(1, M::End, 1100);
        s.marker(3, M::Start, 1100, 12);
        s.api(2, 1110, 5);
        s.marker(3, M::End, 1250);
        s.kernel(1, 1040, 50);
        s.kernel(2, 1120, 50);
        const Trace t = s.trace();
        const SliceId step4 = onlySlice(t, "ProfilerStep#4", SliceClass::UserAnnotation);
        QVERIFY(step4 != kNoSlice);
        QCOMPARE(t.slices().externalId[step4], std::int64_t(100));
        QVERIFY(onlySlice(t, "ProfilerStep#5", SliceClass::UserAnnotation) != kNoSlice);
        const auto gpus = gpu::analyzeGpus(t);
        QCOMPARE(gpus.windows.hasProfilerSteps, true);
        QCOMPARE(gpus.windows.steps.size(), std::size_t(2));
        QCOMPARE(gpus.windows.stepsStart, TimeNs(1000000));
        QCOMPARE(gpus.windows.stepsEnd, TimeNs(1250000));
    }

    // A collected trace without ops or steps: GPU metrics over the GPU's busy span, not the
    // process lifetime (a 3.5 s start-up of calls and NVTX before 0.2 s of back-to-back work).
    void metricsWindowWithoutOpsIsGpuActivity()
    {
        Stream s;
        s.send(h200());
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z4gemmPfi");
        s.string(11, "startup");
        s.marker(1, wire::Marker::Start, 0, 11);
        s.marker(1, wire::Marker::End, 3500000);
        s.api(1, 3500000, 5);
        s.api(2, 3500010, 5);
        s.kernel(1, 3500020, 100000);
        s.kernel(2, 3600020, 100000);
        const auto gpus = gpu::analyzeGpus(s.trace());
        QCOMPARE(gpus.windows.hasHostEvents, false);
        QCOMPARE(gpus.windows.stepsStart, TimeNs(3500020000));
        QCOMPARE(gpus.windows.stepsEnd, TimeNs(3700020000));
        QCOMPARE(gpus.summaries.size(), std::size_t(1));
        QCOMPARE(gpus.summaries[0].steps.utilization, 1.0);
    }
};

QTEST_GUILESS_MAIN(TestTorchOps)
#include "tst_torchops.moc"
