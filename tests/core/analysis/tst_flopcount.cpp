// FLOPs and bytes per op call (core/analysis/shapeargs, flopcount, devicepeaks, opcosts): the
// shape parser on real and absurd args, FlopCounterMode's rules on hand-made shapes, the
// datasheet peaks, and train_baseline's fp32 GEMMs counted independently from the fixture's
// own "Input Dims" and kernel durations (nlohmann's DOM, which the loader never uses).
#include "core/analysis/devicepeaks.h"
#include "core/analysis/flopcount.h"
#include "core/analysis/opcosts.h"
#include "core/analysis/roofline.h"
#include "core/loading/loader.h"
#include "core/stats/operatortable.h"
#include "fixtureevents.h"
#include "testtext.h"

#include <QTest>

#include <map>
#include <numeric>

using namespace ks;
using namespace ks::analysis;

namespace {

// An event text as kineto writes it, with the given args object.
std::string eventWithArgs(const std::string& name, const std::string& args)
{
    return R"({"ph": "X", "cat": "cpu_op", "name": ")" + name + R"(", "ts": 1, "dur": 2, "args": )" + args + "}";
}

OpCost cost(const std::string& name, const std::string& args)
{
    return costOf(name, parseShapeArgs(eventWithArgs(name, args)));
}

std::shared_ptr<const Trace> baseline()
{
    static const auto trace = loadTraceFile(std::string(KS_TEST_DATA) + "/train_baseline.pt.trace.json.gz").trace;
    return trace;
}

} // namespace

class TstFlopCount : public QObject {
    Q_OBJECT

private slots:
    void parsesKinetoShapeArgs()
    {
        const ShapeArgs args = parseShapeArgs(
            eventWithArgs("aten::addmm", R"({"External id": 19, "Concrete Inputs": ["", "", "", "1", "1"],
              "Input type": ["float", "float", "float", "Scalar", "Scalar"],
              "Input Dims": [[1536], [4096, 512], [512, 1536], [], []]})"));
        QVERIFY(args.recorded);
        QVERIFY(args.warnings.empty());
        QCOMPARE(args.inputs.size(), std::size_t(5));
        QCOMPARE(args.inputs[1].dims, (std::vector<std::int64_t>{4096, 512}));
        QCOMPARE(args.inputs[1].type, ElementType::Fp32);
        QCOMPARE(*args.inputs[1].bytes(), std::int64_t(4096 * 512 * 4));
        QVERIFY(!args.inputs[3].hasShape); // a Scalar
        QCOMPARE(*args.concreteInts(3), std::vector<std::int64_t>{1});
        const ShapeArgs list =
            parseShapeArgs(eventWithArgs("x", R"({"Input Dims": [[], []], "Input type": ["ScalarList", "Scalar"],
                     "Concrete Inputs": ["[2, 3]", "True"]})"));
        QCOMPARE(*list.concreteInts(0), (std::vector<std::int64_t>{2, 3}));
        QCOMPARE(list.concreteBool(1), std::optional(true));
        QVERIFY(!parseShapeArgs(eventWithArgs("aten::mm", R"({"External id": 3})")).recorded);
        // The quick scan and the full parse agree: a key in a string value is not the key, an
        // escaped key is found by the full parse.
        const ShapeArgs decoy =
            parseShapeArgs(eventWithArgs("aten::mm",
                                         "{\"note\": \"\\\"Input Dims\\\": [[1]]\", \"Input Dims\": [[2, 3], [3, 4]], "
                                         "\"Input type\": [\"float\", \"float\"]}"));
        QCOMPARE(decoy.inputs.size(), std::size_t(2));
        QCOMPARE(decoy.inputs[1].dims, (std::vector<std::int64_t>{3, 4}));
        const ShapeArgs escaped = parseShapeArgs(eventWithArgs(
            "aten::mm", "{\"\\u0049nput Dims\": [[2, 3], [3, 4]], \"Input type\": [\"float\", \"float\"]}"));
        QCOMPARE(escaped.inputs.size(), std::size_t(2));
        QVERIFY(!findShapeArgs(eventWithArgs("aten::mm", R"({"Input Dims": [[2, 3], [3, 4]})")));
        QCOMPARE(*costOf("aten::mm", escaped).flops, std::int64_t(2 * 2 * 4 * 3));
    }

    // The one-pass scan finds the three arrays wherever the args put them (older torch
    // writes "Input dims"); brackets and commas inside strings do not end an array.
    void scanFindsTheRawArrays()
    {
        const auto raw = findShapeArgs(eventWithArgs(
            "aten::add", R"({"Input type" : ["float", "Scalar"], "Ev Idx": 4, "Concrete Inputs": ["", "[1, ]"],
              "Input dims": [[2, 3], []]})"));
        QVERIFY(raw);
        QCOMPARE(raw->dims, std::string_view("[[2, 3], []]"));
        QCOMPARE(raw->types, std::string_view(R"(["float", "Scalar"])"));
        QCOMPARE(raw->concrete, std::string_view(R"(["", "[1, ]"])"));
        const auto none = findShapeArgs(eventWithArgs("aten::add", R"({"name": "Input Dims", "Ev Idx": 4})"));
        QVERIFY(none && none->dims.empty());
        QVERIFY(!findShapeArgs(eventWithArgs("aten::add", R"({"Input Dims": 3})")));
    }

    // The cached pass (the loader's shape args parsed once per distinct (name, args), texts read
    // back only for calls without them) gives every call and every operator row the FLOPs,
    // bytes and type that parsing each call's own text gives; the loader's args are exactly
    // what findShapeArgs finds in that text, and they are what nearly every call uses.
    void cachedCostsEqualEveryCallParsed_data()
    {
        QTest::addColumn<std::string>("fixture");
        QTest::addColumn<int>("rowsWithFlops");
        QTest::newRow("train_baseline") << std::string("train_baseline") << 10;
        QTest::newRow("transformer") << std::string("transformer") << 10;
        QTest::newRow("big") << std::string("big") << 10;
        QTest::newRow("ddp_rank0") << std::string("ddp_rank0") << 5;
    }
    void cachedCostsEqualEveryCallParsed()
    {
        QFETCH(std::string, fixture);
        QFETCH(int, rowsWithFlops);
        const auto trace = loadTraceFile(KS_TEST_DATA "/" + fixture + ".pt.trace.json.gz").trace;
        QVERIFY(trace);
        const SliceTable& slices = trace->slices();
        std::vector<SliceId> all(slices.size());
        std::iota(all.begin(), all.end(), SliceId(0));
        std::vector<std::optional<OpCost>> own(slices.size());
        std::size_t cpuOps = 0, pooled = 0, foundElsewhere = 0;
        trace->forEachEventText(all, [&](SliceId s, std::string_view text) {
            if (trace->classOf(s) != SliceClass::CpuOp)
                return;
            ++cpuOps;
            if (const std::uint32_t id = slices.shapeArgs[s]; id != kNoIndex) {
                ++pooled;
                const auto raw = findShapeArgs(text);
                foundElsewhere += raw && *raw == trace->shapeArgs().view(id) ? 0 : 1;
            }
            const std::string_view name = trace->str(slices.name[s]);
            if (costRuleOf(name) != CostRule::None)
                own[s] = costOf(name, parseShapeArgs(text));
        });
        QCOMPARE(foundElsewhere, std::size_t(0));
        QCOMPARE(pooled, cpuOps); // kineto writes plain ASCII
        QVERIFY(trace->shapeArgs().size() * 5 < cpuOps);

        const OpCosts costs = OpCosts::ofTrace(*trace);
        std::size_t calls = 0;
        for (SliceId s = 0; s < slices.size(); ++s) {
            const OpCost* cached = costs.find(s);
            QCOMPARE(cached != nullptr, own[s].has_value());
            if (!cached)
                continue;
            QCOMPARE(cached->flops, own[s]->flops);
            QCOMPARE(cached->bytes, own[s]->bytes);
            QCOMPARE(cached->type, own[s]->type);
            QCOMPARE(cached->rule, own[s]->rule);
            ++calls;
        }
        QVERIFY(calls > 200);
        const OperatorTable table = computeOperatorTable(*trace);
        const DevicePeaks peaks = resolveDevicePeaks(*trace);
        int withFlops = 0;
        for (const OperatorRow& row : table.rows) {
            if (row.isDevice || row.isUserAnnotation || !own[row.slices.front()])
                continue;
            std::optional<std::int64_t> flops = 0, bytes = 0;
            for (const SliceId s : row.slices) {
                flops = checkedAdd(flops, own[s]->flops);
                bytes = checkedAdd(bytes, own[s]->bytes);
            }
            const RowRoofline cached = rooflineOfRow(row, costs, peaks);
            QCOMPARE(cached.flops, flops);
            QCOMPARE(cached.bytes, bytes);
            withFlops += flops && *flops > 0 ? 1 : 0;
        }
        QVERIFY2(withFlops >= rowsWithFlops, std::to_string(withFlops).c_str());
    }

    void absurdDimsGiveNoNumberAndAWarning()
    {
        // A negative size, a size past int64, an element count past 2^63, a rank of 65.
        const char* absurd[] = {
            R"({"Input Dims": [[-4, 8], [8, 8]], "Input type": ["float", "float"]})",
            R"({"Input Dims": [[18446744073709551615, 8], [8, 8]], "Input type": ["float", "float"]})",
            R"({"Input Dims": [[4294967296, 4294967296], [4294967296, 8]], "Input type": ["float", "float"]})",
            R"({"Input Dims": [[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1], [8, 8]], "Input type": ["float", "float"]})",
        };
        for (const char* args : absurd) {
            const ShapeArgs parsed = parseShapeArgs(eventWithArgs("aten::mm", args));
            QVERIFY2(!parsed.warnings.empty(), args);
            const OpCost c = costOf("aten::mm", parsed);
            QVERIFY2(!c.flops && !c.bytes, args);
            QVERIFY(!c.unknownReason.empty());
        }
        // Each size fits, but 2·M·N·K does not: no number, no overflow.
        const OpCost big = cost("aten::mm", R"({"Input Dims": [[2147483648, 2147483648], [2147483648, 4]],
                                                "Input type": ["c10::BFloat16", "c10::BFloat16"]})");
        QVERIFY(!big.flops);
        QVERIFY(!cost("aten::mm", R"({"Input Dims": [[4, 8], [9, 8]], "Input type": ["float", "float"]})").flops);
        QVERIFY(!parseShapeArgs("{not json").recorded);
        QVERIFY(!parseShapeArgs(eventWithArgs("aten::mm", R"({"Input Dims": 7})")).recorded);
    }

    void matmulRules()
    {
        const OpCost mm =
            cost("aten::mm", R"({"Input Dims": [[4096, 512], [512, 2048]], "Input type": ["float", "float"]})");
        QCOMPARE(*mm.flops, std::int64_t(2) * 4096 * 2048 * 512);
        QCOMPARE(*mm.bytes, std::int64_t(4) * (4096 * 512 + 512 * 2048 + 4096 * 2048));
        QCOMPARE(mm.gemm->m, std::int64_t(4096));
        const OpCost addmm = cost("aten::addmm", R"({"Input Dims": [[1536], [4096, 512], [512, 1536], [], []],
                                   "Input type": ["float", "float", "float", "Scalar", "Scalar"]})");
        QCOMPARE(*addmm.flops, std::int64_t(2) * 4096 * 1536 * 512); // the bias is not counted
        const OpCost bmm = cost("aten::bmm", R"({"Input Dims": [[12, 64, 32], [12, 32, 128]],
                                 "Input type": ["c10::BFloat16", "c10::BFloat16"]})");
        QCOMPARE(*bmm.flops, std::int64_t(2) * 12 * 64 * 128 * 32);
        QCOMPARE(bmm.type, ElementType::Bf16);
        const OpCost baddbmm =
            cost("aten::baddbmm", R"({"Input Dims": [[12, 64, 128], [12, 64, 32], [12, 32, 128], [], []],
                                     "Input type": ["float", "float", "float", "Scalar", "Scalar"]})");
        QCOMPARE(*baddbmm.flops, *bmm.flops);
        const OpCost linear = cost("aten::linear", R"({"Input Dims": [[8, 256, 512], [1536, 512], [1536]],
                                    "Input type": ["float", "float", "float"]})");
        QCOMPARE(*linear.flops, std::int64_t(2) * 8 * 256 * 1536 * 512);
        QVERIFY(linear.composite);
        const OpCost matmul = cost("aten::matmul", R"({"Input Dims": [[4, 1, 64, 32], [3, 32, 16]],
                                    "Input type": ["float", "float"]})");
        QCOMPARE(*matmul.flops, std::int64_t(2) * 4 * 3 * 64 * 16 * 32); // batch dims broadcast
        QVERIFY(!cost("aten::mm", R"({"Input Dims": [[4, 8], [8, 8]]})").bytes); // no types: no bytes
    }

    void convolutionRules()
    {
        // conv2d 3x3, stride 2, padding 1: 16x16 -> 8x8; groups 2 (weight's C_in is 32 / 2).
        const std::string args = R"({"Input Dims": [[8, 32, 16, 16], [64, 16, 3, 3], [64], [], [], [], [], [], []],
            "Input type": ["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"],
            "Concrete Inputs": ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "2"]})";
        const OpCost conv = cost("aten::convolution", args);
        QCOMPARE(*conv.flops, std::int64_t(2) * 8 * 8 * 8 * 3 * 3 * 64 * 16);
        QCOMPARE(*conv.bytes, std::int64_t(4) * (8 * 32 * 16 * 16 + 64 * 16 * 9 + 64 + 8 * 64 * 8 * 8));
        // Without Concrete Inputs the output size is unknown: no number.
        const OpCost blind = cost("aten::convolution", R"({"Input Dims": [[8, 32, 16, 16], [64, 16, 3, 3], [64]],
                                   "Input type": ["float", "float", "float"]})");
        QVERIFY(!blind.flops);
        QVERIFY(kstest::contains(blind.unknownReason, "Concrete Inputs"));
        // 1-D and 3-D, dilation 2.
        const OpCost conv1d = cost("aten::conv1d", R"({"Input Dims": [[2, 4, 100], [8, 4, 5], [], [], [], [], []],
            "Input type": ["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar"],
            "Concrete Inputs": ["", "", "", "[1]", "[0]", "[2]", "1"]})");
        QCOMPARE(*conv1d.flops, std::int64_t(2) * 2 * (100 - 8) * 5 * 8 * 4);
        const OpCost conv3d =
            cost("aten::conv3d", R"({"Input Dims": [[1, 2, 8, 8, 8], [4, 2, 3, 3, 3], [], [], [], [], []],
            "Input type": ["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar"],
            "Concrete Inputs": ["", "", "", "[1, 1, 1]", "[1, 1, 1]", "[1, 1, 1]", "1"]})");
        QCOMPARE(*conv3d.flops, std::int64_t(2) * 8 * 8 * 8 * 27 * 4 * 2);
        // Transposed: FlopCounterMode counts over the input's points.
        const OpCost transposed =
            cost("aten::convolution", R"({"Input Dims": [[2, 16, 8, 8], [16, 8, 4, 4], [], [], [], [], [], [], []],
            "Input type": ["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"],
            "Concrete Inputs": ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "True", "[0, 0]", "1"]})");
        QCOMPARE(*transposed.flops, std::int64_t(2) * 2 * 64 * 16 * 16 * 8);
        // Backward: grad_input (a conv of grad_out with the weight) + grad_weight.
        const OpCost backward =
            cost("aten::convolution_backward",
                 R"({"Input Dims": [[8, 64, 8, 8], [8, 32, 16, 16], [64, 16, 3, 3], [], [], [], [], [], [], [], []],
            "Input type": ["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar", ""],
            "Concrete Inputs": ["", "", "", "[64]", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "2", "[True, True, True]"]})");
        const std::int64_t gradInput = std::int64_t(2) * 8 * 64 * 9 * 64 * 16;
        const std::int64_t gradWeight = std::int64_t(2) * 32 * 9 * 64 * 64 * 8; // C_in of all groups, as torch
        QCOMPARE(*backward.flops, gradInput + gradWeight);
    }

    void attentionAndOtherRules()
    {
        const std::string qkv = R"("Input Dims": [[16, 8, 256, 64], [16, 8, 512, 64], [16, 8, 512, 32], [], [], [], []],
            "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar", "Scalar", ""])";
        const OpCost forward = cost("aten::_scaled_dot_product_flash_attention", "{" + qkv + "}");
        QCOMPARE(*forward.flops, std::int64_t(2) * 128 * 256 * 512 * 64 + std::int64_t(2) * 128 * 256 * 512 * 32);
        const OpCost backward = cost(
            "aten::_scaled_dot_product_cudnn_attention_backward",
            R"({"Input Dims": [[16, 8, 256, 32], [16, 8, 256, 64], [16, 8, 512, 64], [16, 8, 512, 32], [16, 8, 256, 32]],
                "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16"]})");
        const std::int64_t bh = 128, sq = 256, sk = 512, d = 64, dv = 32;
        QCOMPARE(*backward.flops, 2 * bh * (sq * d * sk + sq * dv * sk + sk * sq * dv + sq * sk * d + d * sq * sk));
        const OpCost norm = cost("aten::native_layer_norm", R"({"Input Dims": [[16, 256, 512], [], [512], [512], []],
            "Input type": ["float", "ScalarList", "float", "float", "Scalar"], "Concrete Inputs": ["", "[512]", "", "", "1e-05"]})");
        QCOMPARE(*norm.flops, std::int64_t(5) * 16 * 256 * 512);
        QCOMPARE(*norm.bytes, std::int64_t(4) * (2 * 16 * 256 * 512 + 2 * 512));
        const OpCost embedding = cost("aten::embedding", R"({"Input Dims": [[50000, 768], [8, 128], [], [], []],
            "Input type": ["float", "long int", "Scalar", "Scalar", "Scalar"]})");
        QCOMPARE(*embedding.flops, std::int64_t(0));
        QCOMPARE(*embedding.bytes, std::int64_t(8) * 8 * 128 + std::int64_t(2) * 8 * 128 * 768 * 4);
        // Elementwise: broadcast output, every input read once.
        const OpCost add =
            cost("aten::add",
                 R"({"Input Dims": [[256, 16, 1536], [1536], []], "Input type": ["float", "float", "Scalar"]})");
        QCOMPARE(*add.flops, std::int64_t(256) * 16 * 1536);
        QCOMPARE(*add.bytes, std::int64_t(4) * (2 * 256 * 16 * 1536 + 1536));
        QVERIFY(!cost("aten::add", R"({"Input Dims": [[3, 4], [5]], "Input type": ["float", "float"]})").flops);
        QCOMPARE(costRuleOf("aten::relu"), CostRule::Elementwise);
        QCOMPARE(costRuleOf("aten::unknown_op"), CostRule::None);
        QVERIFY(!cost("aten::unknown_op", R"({"Input Dims": [[2]]})").flops);
    }

    void peaksFromDatasheetsAndOverrides()
    {
        QCOMPARE(devicePeaksFor("NVIDIA H200")->name, std::string("NVIDIA H200"));
        QCOMPARE(devicePeaksFor("NVIDIA H100 80GB HBM3")->name, std::string("NVIDIA H100 SXM"));
        QCOMPARE(devicePeaksFor("NVIDIA H100 PCIe")->name, std::string("NVIDIA H100 PCIe"));
        QCOMPARE(devicePeaksFor("NVIDIA L4")->name, std::string("NVIDIA L4"));
        QCOMPARE(devicePeaksFor("NVIDIA L40S")->name, std::string("NVIDIA L40S"));
        QCOMPARE(devicePeaksFor("NVIDIA A100-SXM4-40GB")->memoryTBps, 1.555);
        QCOMPARE(devicePeaksFor("AMD Instinct MI300X")->peakTflops(PeakKind::Half), std::optional(1307.4));
        QVERIFY(!devicePeaksFor("NVIDIA L40"));
        QVERIFY(!devicePeaksFor("Tesla T4"));
        for (const DevicePeaks& p : knownDevicePeaks()) {
            QVERIFY(!p.source.empty());
            QVERIFY(p.peakTBps());
            QVERIFY(*p.peakTflops(PeakKind::Half) > *p.peakTflops(PeakKind::Fp32));
        }
        PeakOverrides overrides;
        QVERIFY(!parsePeakTflops("bf16=900,fp32=60", overrides));
        QVERIFY(!parsePeakTBps("4", overrides));
        QVERIFY(parsePeakTflops("bf16=x", overrides));
        QVERIFY(parsePeakTflops("-3", overrides));
        QVERIFY(parsePeakTflops("int4=3", overrides));
        const DevicePeaks peaks = resolveDevicePeaks(*baseline(), overrides);
        QCOMPARE(peaks.peakTflops(PeakKind::Half), std::optional(900.0));
        QCOMPARE(peaks.peakTflops(PeakKind::Tf32), std::optional(494.5)); // kept from the H200's entry
        QCOMPARE(peaks.memoryTBps, 4.0);
    }

    // One call against the roofs (Details): its kernels found by flow from its launches add up,
    // over aten::mm's calls, to the operator table's device time (found by correlation), and
    // each call's FLOPs to the row's.
    void callsAddUpToTheirRow()
    {
        const Trace& trace = *baseline();
        const OperatorTable table = computeOperatorTable(trace);
        const auto row = std::find_if(table.rows.begin(), table.rows.end(),
                                      [](const OperatorRow& r) { return r.name == "aten::mm" && !r.isDevice; });
        QVERIFY(row != table.rows.end());
        const DevicePeaks peaks = resolveDevicePeaks(trace);
        TimeNs device = 0;
        std::int64_t flops = 0;
        std::uint64_t kernels = 0;
        for (const SliceId s : row->slices) {
            OperatorRow call;
            const RowRoofline f = rooflineOfCall(trace, s, peaks, &call);
            QVERIFY(f.flops && f.tflopsPerS && f.peakFraction && f.tf32PeakFraction);
            QCOMPARE(f.peakKind, std::optional(PeakKind::Fp32));
            QVERIFY(std::abs(*f.peakFraction - *f.tflopsPerS / 67.0) < 1e-9);
            device += call.deviceTotal;
            flops += *f.flops;
            kernels += call.kernels;
        }
        QCOMPARE(device, row->deviceTotal);
        QCOMPARE(kernels, row->kernels);
        QCOMPARE(flops, *rooflineOfRow(*row, OpCosts::ofRows(trace, {&*row, 1}), peaks).flops);
    }

    // train_baseline (H200, fp32, TF32 off): every aten::mm and aten::addmm gets 2·M·N·K from
    // its own Input Dims, and its TFLOP/s from the durations of the kernels its launches ran.
    void baselineGemmsAgainstTheFixture()
    {
        const kstest::FixtureEvents fixture("train_baseline");
        std::map<std::string, double> flopsByName; // counted from the DOM
        std::map<std::int64_t, std::string> gemmOfExternalId;
        for (const auto& e : fixture.slices) {
            const std::string name = e.value("name", "");
            if (e.value("cat", "") != "cpu_op" || (name != "aten::mm" && name != "aten::addmm"))
                continue;
            const auto& dims = e["args"]["Input Dims"];
            const std::size_t a = name == "aten::addmm" ? 1 : 0;
            const double m = dims[a][0], k = dims[a][1], n = dims[a + 1][1];
            QCOMPARE(double(dims[a + 1][0]), k);
            flopsByName[name] += 2 * m * n * k;
            gemmOfExternalId[e["args"]["External id"].get<std::int64_t>()] = name;
        }
        std::map<std::string, double> kernelUs;
        for (const auto& e : fixture.slices) {
            if (e.value("cat", "") != "kernel")
                continue;
            const auto it = gemmOfExternalId.find(e["args"].value("External id", std::int64_t(-1)));
            if (it != gemmOfExternalId.end())
                kernelUs[it->second] += e["dur"].get<double>();
        }
        QCOMPARE(flopsByName.size(), std::size_t(2));

        const OperatorTable table = computeOperatorTable(*baseline());
        const OpCosts costs = OpCosts::ofRows(*baseline(), table.rows);
        QCOMPARE(costs.absurdOps(), std::size_t(0));
        const DevicePeaks peaks = resolveDevicePeaks(*baseline());
        QCOMPARE(peaks.name, std::string("NVIDIA H200"));
        for (const auto& [name, flops] : flopsByName) {
            const auto row = std::find_if(table.rows.begin(), table.rows.end(),
                                          [&](const OperatorRow& r) { return r.name == name && !r.isDevice; });
            QVERIFY(row != table.rows.end());
            const RowRoofline f = rooflineOfRow(*row, costs, peaks);
            QCOMPARE(double(*f.flops), flops);
            QCOMPARE(f.rule, CostRule::Matmul);
            QCOMPARE(f.type, std::optional(ElementType::Fp32));
            QCOMPARE(f.peakKind, std::optional(PeakKind::Fp32)); // SIMT/FFMA kernels: no TF32
            const double tflops = flops / (kernelUs[name] * 1e-6) * 1e-12;
            QVERIFY2(std::abs(*f.tflopsPerS - tflops) < 1e-3 * tflops, name.c_str());
            QVERIFY(std::abs(*f.peakFraction - tflops / 67.0) < 1e-3);
            QVERIFY(std::abs(*f.tf32PeakFraction - tflops / 494.5) < 1e-3);
            QVERIFY(*f.tflopsPerS > 30 && *f.tflopsPerS < 67); // fp32 SIMT on an H200
            QCOMPARE(f.bound, Bound::Compute);
        }

        // The roofline: one point per GEMM shape (8 of mm, 4 of addmm), each with the kernels
        // its calls launched; the composite aten::linear is not a point of its own.
        const auto facts = facts::makeTraceFacts(baseline());
        const Roofline roofline = computeRoofline(*facts, costs);
        std::map<std::string, std::size_t> pointsOf;
        std::size_t gemmKernels = 0;
        for (const RooflinePoint& p : roofline.points) {
            ++pointsOf[p.name];
            QVERIFY(p.flopsPerByte > 0 && p.tflopsPerS > 0);
            if (p.name == "aten::mm" || p.name == "aten::addmm")
                gemmKernels += p.kernels.size();
        }
        QCOMPARE(pointsOf["aten::mm"], std::size_t(8));
        QCOMPARE(pointsOf["aten::addmm"], std::size_t(4));
        QCOMPARE(pointsOf.count("aten::linear"), std::size_t(0));
        std::size_t fixtureKernels = 0;
        for (const auto& e : fixture.slices)
            fixtureKernels += e.value("cat", "") == "kernel"
                && gemmOfExternalId.count(e["args"].value("External id", std::int64_t(-1)));
        QCOMPARE(gemmKernels, fixtureKernels);
        QCOMPARE(roofline.points.front().deviceNs >= roofline.points.back().deviceNs, true);
    }
};

QTEST_GUILESS_MAIN(TstFlopCount)
#include "tst_flopcount.moc"
