// Call trees on a trace of about 745k events / 229 MB (big.pt.trace.json.gz tiled by
// bench/tiler, or argv[1]): the trace's facts (shared with the other analyses, built once per
// trace), then the top-down tree of the whole trace (issue 38's target: <= 0.5 s on 2 cores),
// with Python frames and kernel leaves, one step's tree, the bottom-up tree and the folded text.
#include "bench/measure.h"
#include "bench/tiler/tracetiler.h"
#include "core/analysis/calltree.h"
#include "core/analysis/calltreefolded.h"
#include "core/facts/tracefacts.h"

#include <cstdio>
#include <sstream>

using namespace ks;
using bench::Clock;
using bench::Since;

int main(int argc, char** argv)
{
    const auto trace = bench::loadBenchTrace(argc, argv, KS_BENCH_DATA);
    if (!trace)
        return 1;
    Since start;
    const auto facts = facts::makeTraceFacts(trace);
    std::printf("trace facts (once per trace)        %8.1f ms wall %8.1f ms CPU\n", start.wallMs(), start.cpuMs());

    start = Since();
    const analysis::CallTree plain = analysis::buildCallTree(*facts);
    std::printf("top-down tree, whole trace          %8.1f ms wall %8.1f ms CPU  (%zu nodes, %zu occurrences)\n",
                start.wallMs(), start.cpuMs(), plain.size(), plain.occurrences.size());

    analysis::CallTreeOptions full;
    full.python = true;
    full.gpuFrames = true;
    start = Since();
    const analysis::CallTree tree = analysis::buildCallTree(*facts, full);
    std::printf("top-down, Python frames + kernels   %8.1f ms wall %8.1f ms CPU  (%zu nodes)\n", start.wallMs(),
                start.cpuMs(), tree.size());

    if (!facts->windows.steps.empty()) {
        analysis::CallTreeOptions step = full;
        step.rangeStart = facts->windows.steps.front().hostStart;
        step.rangeEnd = facts->windows.steps.front().hostEnd;
        start = Since();
        const analysis::CallTree stepTree = analysis::buildCallTree(*facts, step);
        std::printf("top-down, first step                %8.1f ms wall %8.1f ms CPU  (%zu nodes)\n", start.wallMs(),
                    start.cpuMs(), stepTree.size());
    }

    start = Since();
    const analysis::CallTree inverted = analysis::invertCallTree(tree);
    std::printf("bottom-up from it                   %8.1f ms wall %8.1f ms CPU  (%zu nodes)\n", start.wallMs(),
                start.cpuMs(), inverted.size());

    std::ostringstream out;
    start = Since();
    analysis::writeFoldedStacks(*trace, tree, analysis::FoldedTime::Gpu, out);
    std::printf("folded stacks (GPU)                 %8.1f ms wall %8.1f ms CPU  (%zu bytes)\n", start.wallMs(),
                start.cpuMs(), out.str().size());
    std::printf("problems: %llu unbalanced, %llu GPU ops without launch, %llu without op\n",
                static_cast<unsigned long long>(tree.problems.unbalanced),
                static_cast<unsigned long long>(tree.problems.gpuWithoutLaunch),
                static_cast<unsigned long long>(tree.problems.gpuWithoutOp));
    return 0;
}
