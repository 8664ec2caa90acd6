// Call trees: per op name the self CPU and self GPU sums equal the operator table's, the GPU
// tree's total is the range's kernel + memcpy + memset time, GPU work sits under the stacks
// that launched it, bottom-up trees and folded stacks keep the totals.
#include "core/analysis/calltree.h"
#include "core/analysis/calltreediff.h"
#include "core/analysis/calltreefolded.h"
#include "core/facts/tracefacts.h"
#include "core/gpu/tensorcores.h"
#include "core/loading/loader.h"
#include "core/stats/kernelstats.h"
#include "core/stats/operatortable.h"
#include "fixtureloader.h"

#include <QTest>

#include <map>
#include <set>
#include <sstream>

using namespace ks;
using namespace ks::analysis;

namespace {

struct SelfTimes {
    TimeNs cpu = 0, gpu = 0;
};

// Per frame name (ProfilerStep#N as the table's ProfilerStep*): the tree's self sums.
std::map<std::string, SelfTimes> selfByName(const Trace& trace, const CallTree& tree)
{
    std::map<std::string, SelfTimes> out;
    for (std::uint32_t n = 1; n < tree.size(); ++n) {
        if (tree.kind[n] == CallFrameKind::Gpu || tree.kind[n] == CallFrameKind::Unattributed)
            continue;
        const std::string name = callFrameLabel(trace, tree, n); // "ProfilerStep*" for the steps
        out[name].cpu += tree.cpuSelf[n];
        out[name].gpu += tree.gpuSelf[n];
    }
    return out;
}

TimeNs deviceActivityTime(const Trace& trace)
{
    TimeNs sum = 0;
    for (const auto& row : computeKernelStats(trace))
        sum += row.total;
    for (SliceId s = 0; s < trace.slices().size(); ++s) {
        const SliceClass c = trace.classOf(s);
        if (c == SliceClass::Memcpy || c == SliceClass::Memset)
            sum += trace.slices().duration[s];
    }
    return sum;
}

// The labels from the top frame down to n.
std::vector<std::string> stackOf(const Trace& trace, const CallTree& tree, std::uint32_t n)
{
    std::vector<std::string> out;
    for (; n != CallTree::kRoot; n = tree.parent[n])
        out.insert(out.begin(), callFrameLabel(trace, tree, n));
    return out;
}

} // namespace

class TstCallTree : public QObject {
    Q_OBJECT

private slots:
    void selfTimesEqualTheOperatorTable_data()
    {
        QTest::addColumn<std::string>("fixture");
        QTest::addColumn<int>("rowsCompared");
        QTest::newRow("mlp_ops") << std::string("mlp_ops") << 53;
        QTest::newRow("train_baseline") << std::string("train_baseline") << 108;
        QTest::newRow("transformer") << std::string("transformer") << 115;
    }
    void selfTimesEqualTheOperatorTable()
    {
        QFETCH(std::string, fixture);
        QFETCH(int, rowsCompared);
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace(fixture));
        const Trace& trace = *facts->trace;
        const CallTree tree = buildCallTree(*facts);
        const OperatorTable table = computeOperatorTable(*facts);
        const auto mine = selfByName(trace, tree);
        // The table credits a CUPTI overhead record with the GPU time of the op it ran in as
        // well (torch does); the tree credits every GPU op once, to its launching op.
        std::set<std::string> overheads;
        for (SliceId s = 0; s < trace.slices().size(); ++s) {
            if (trace.classOf(s) == SliceClass::Overhead)
                overheads.insert(std::string(trace.str(trace.slices().name[s])));
        }
        int compared = 0;
        for (const OperatorRow& row : table.rows) {
            if (row.isDevice || row.name == "[memory]")
                continue;
            const auto it = mine.find(row.name);
            QVERIFY2(it != mine.end(), row.name.c_str());
            QCOMPARE(it->second.cpu, row.selfCpu);
            if (!overheads.count(row.name))
                QCOMPARE(it->second.gpu, row.selfDevice);
            ++compared;
        }
        QCOMPARE(compared, rowsCompared); // every CPU-side row of the table
        QCOMPARE(tree.gpuTotal[CallTree::kRoot], table.selfDeviceTotal);
        QCOMPARE(tree.gpuTotal[CallTree::kRoot], deviceActivityTime(trace));
        QCOMPARE(tree.cpuTotal[CallTree::kRoot], table.selfCpuTotal);
        QCOMPARE(tree.problems.unbalanced, std::uint64_t(0));
    }

    // train_baseline's fp32 GEMMs (SIMT sgemm, xmma f32) sit under aten::mm/addmm, inside the
    // module and Python frames of the code that called them.
    void gpuLeavesUnderTheirLaunchingStacks()
    {
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("train_baseline"));
        const Trace& trace = *facts->trace;
        CallTreeOptions options;
        options.gpuFrames = true;
        options.python = true;
        const CallTree tree = buildCallTree(*facts, options);
        TimeNs fp32 = 0, expected = 0;
        std::uint64_t calls = 0, expectedCalls = 0;
        for (std::uint32_t n = 1; n < tree.size(); ++n) {
            if (tree.kind[n] != CallFrameKind::Gpu || !gpu::isFp32GemmKernel(trace.str(tree.name[n])))
                continue;
            const auto stack = stackOf(trace, tree, n);
            QVERIFY2(stack.size() >= 3, stack.back().c_str());
            const std::string& launcher = stack[stack.size() - 2];
            QVERIFY2(launcher == "aten::mm" || launcher == "aten::addmm" || launcher == "aten::bmm", launcher.c_str());
            std::string joined;
            for (const auto& f : stack)
                joined += f + " ; ";
            // Forward GEMMs inside their module's frame (Linear, Attn), backward ones in autograd's.
            QVERIFY2(std::any_of(stack.begin(), stack.end(),
                                 [](const std::string& f) {
                                     return f.rfind("nn.Module: ", 0) == 0
                                         || f.rfind("autograd::engine::evaluate_function: ", 0) == 0;
                                 }),
                     joined.c_str());
            fp32 += tree.gpuSelf[n];
            calls += tree.calls[n];
        }
        for (SliceId s = 0; s < trace.slices().size(); ++s) {
            if (trace.classOf(s) == SliceClass::Kernel && gpu::isFp32GemmKernel(trace.str(trace.slices().name[s]))) {
                expected += trace.slices().duration[s];
                ++expectedCalls;
            }
        }
        QVERIFY(expectedCalls >= 60);
        QCOMPARE(calls, expectedCalls);
        QCOMPARE(fp32, expected);
        QCOMPARE(tree.gpuTotal[CallTree::kRoot], deviceActivityTime(trace));
    }

    // Bottom-up: every frame's self time once on the first level; the folded lines of both
    // trees parse and sum to the total.
    void bottomUpAndFoldedKeepTheTotals()
    {
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("transformer"));
        CallTreeOptions options;
        options.gpuFrames = true;
        const CallTree tree = buildCallTree(*facts, options);
        const CallTree inverted = invertCallTree(tree);
        QCOMPARE(inverted.cpuTotal[CallTree::kRoot], tree.cpuTotal[CallTree::kRoot]);
        QCOMPARE(inverted.gpuTotal[CallTree::kRoot], tree.gpuTotal[CallTree::kRoot]);
        TimeNs firstLevelCpu = 0;
        for (std::uint32_t c = inverted.firstChild[0]; c != CallTree::kNone; c = inverted.nextSibling[c])
            firstLevelCpu += inverted.cpuSelf[c];
        QCOMPARE(firstLevelCpu, tree.cpuTotal[CallTree::kRoot]);
        // aten::copy_'s self time by caller: its first-level node has all of it.
        const auto mine = selfByName(*facts->trace, tree);
        for (std::uint32_t c = inverted.firstChild[0]; c != CallTree::kNone; c = inverted.nextSibling[c]) {
            if (facts->trace->str(inverted.name[c]) == "aten::copy_" && inverted.kind[c] == CallFrameKind::Op)
                QCOMPARE(inverted.cpuSelf[c], mine.at("aten::copy_").cpu);
        }
        for (const CallTree* t : {&tree, &inverted}) {
            for (const FoldedTime time : {FoldedTime::Cpu, FoldedTime::Gpu}) {
                std::ostringstream out;
                const TimeNs written = writeFoldedStacks(*facts->trace, *t, time, out);
                std::istringstream in(out.str());
                std::string line;
                TimeNs sum = 0;
                std::size_t lines = 0;
                while (std::getline(in, line)) {
                    const auto space = line.rfind(' ');
                    QVERIFY(space != std::string::npos && space > 0);
                    const std::string value = line.substr(space + 1);
                    QVERIFY(!value.empty() && value.find_first_not_of("0123456789") == std::string::npos);
                    sum += std::stoll(value);
                    ++lines;
                }
                const TimeNs total = time == FoldedTime::Cpu ? t->cpuTotal[0] : t->gpuTotal[0];
                QCOMPARE(sum, total);
                QCOMPARE(written, total);
                QVERIFY(lines > 50);
            }
        }
    }

    // Partial overlaps and GPU ops without a launch (or whose launch has no op) are counted;
    // the GPU time still adds up, under "[no launching op]".
    void unbalancedAndMissingFlowsAreCounted()
    {
        const std::string text = R"({"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 0, "dur": 100, "args": {"External id": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "straddles", "pid": 1, "tid": 1, "ts": 50, "dur": 100, "args": {"External id": 2}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"External id": 1, "correlation": 7}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 200, "dur": 5, "args": {"External id": 99, "correlation": 8}},
 {"ph": "X", "cat": "kernel", "name": "k_launched", "pid": 0, "tid": 7, "ts": 20, "dur": 30, "args": {"correlation": 7, "External id": 1}},
 {"ph": "X", "cat": "kernel", "name": "k_no_op", "pid": 0, "tid": 7, "ts": 210, "dur": 40, "args": {"correlation": 8}},
 {"ph": "X", "cat": "kernel", "name": "k_orphan", "pid": 0, "tid": 7, "ts": 300, "dur": 50, "args": {"correlation": 9}}
]})";
        const LoadResult loaded = loadTraceFromMemory(text, "hostile");
        QVERIFY(loaded.ok());
        const auto facts = facts::makeTraceFacts(loaded.trace);
        CallTreeOptions options;
        options.gpuFrames = true;
        const CallTree tree = buildCallTree(*facts, options);
        QCOMPARE(tree.problems.gpuWithoutLaunch, std::uint64_t(1));
        QCOMPARE(tree.problems.gpuWithoutOp, std::uint64_t(1));
        QCOMPARE(tree.gpuTotal[CallTree::kRoot], TimeNs(120'000));
        std::map<std::string, std::uint32_t> byLabel;
        for (std::uint32_t n = 1; n < tree.size(); ++n)
            byLabel[callFrameLabel(*facts->trace, tree, n)] = n;
        QCOMPARE(tree.gpuSelf[byLabel.at("outer")], TimeNs(30'000));
        QCOMPARE(tree.gpuTotal[byLabel.at("[no launching op]")], TimeNs(90'000));
        QCOMPARE(tree.parent[byLabel.at("[gpu] k_orphan")], byLabel.at("[no launching op]"));
        // The straddling op could not nest in "outer": a root of its own, all its time self.
        QCOMPARE(tree.problems.unbalanced, std::uint64_t(1));
        QCOMPARE(tree.cpuSelf[byLabel.at("straddles")], TimeNs(100'000));
        QCOMPARE(tree.cpuTotal[CallTree::kRoot], TimeNs(200'000 + 5'000));
    }

    // A step's tree holds that step's occurrences only.
    void rangeOfOneStep()
    {
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("train_baseline"));
        const auto& step = facts->windows.steps[1];
        CallTreeOptions options;
        options.rangeStart = step.hostStart;
        options.rangeEnd = step.hostEnd;
        const CallTree tree = buildCallTree(*facts, options);
        QCOMPARE(tree.stepCount, std::size_t(1));
        OperatorTableOptions tableOptions;
        tableOptions.rangeStart = step.hostStart;
        tableOptions.rangeEnd = step.hostEnd;
        const OperatorTable table = computeOperatorTable(*facts, tableOptions);
        const auto mine = selfByName(*facts->trace, tree);
        const auto row = std::find_if(table.rows.begin(), table.rows.end(),
                                      [](const OperatorRow& r) { return r.name == "aten::addmm"; });
        QVERIFY(row != table.rows.end());
        QCOMPARE(mine.at("aten::addmm").cpu, row->selfCpu);
        QCOMPARE(tree.calls[tree.firstChild[0]] >= 1, true);
    }

    // The diff flame graph of train_baseline -> train_optimized: the fp32 GEMM kernels under
    // their launching stacks in BASE are gone in NEW (vanished, BASE's width kept).
    void diffShowsTheFp32GemmsGone()
    {
        const auto base = facts::makeTraceFacts(testing::fixtureTrace("train_baseline"));
        const auto next = facts::makeTraceFacts(testing::fixtureTrace("train_optimized"));
        CallTreeOptions options;
        options.gpuFrames = true;
        const CallTree baseTree = buildCallTree(*base, options);
        const CallTree newTree = buildCallTree(*next, options);
        const CallTreeDiff diff = diffCallTrees(*base->trace, baseTree, *next->trace, newTree, FoldedTime::Gpu);
        QCOMPARE(diff.base[0], double(baseTree.gpuTotal[0]) / double(baseTree.stepCount));
        QCOMPARE(diff.next[0], double(newTree.gpuTotal[0]) / double(newTree.stepCount));
        std::size_t gone = 0;
        double goneTime = 0;
        for (std::uint32_t n = 1; n < diff.size(); ++n) {
            if (diff.kind[n] != CallFrameKind::Gpu || !gpu::isFp32GemmKernel(diff.label[n].substr(6)))
                continue;
            QVERIFY2(diff.vanished(n), diff.label[n].c_str());
            QCOMPARE(diff.change(n), -1.0);
            const std::string& launcher = diff.label[diff.parent[n]];
            QVERIFY2(launcher == "aten::mm" || launcher == "aten::addmm" || launcher == "aten::bmm", launcher.c_str());
            ++gone;
            goneTime += diff.base[n];
        }
        QVERIFY(gone >= 4);
        QVERIFY(goneTime > 0.2 * diff.base[0]); // a large share of BASE's GPU time per step
    }
};

QTEST_GUILESS_MAIN(TstCallTree)
#include "tst_calltree.moc"
