// Critical path benchmark (issue 36): the critical path of every step of a large trace
// against the time to load it (target: at most 2x), and a what-if re-solve per step (target:
// at most 50 ms).
//   bench_criticalpath [FILE]     FILE defaults to the tiled ~745k-event trace, made on first use.
#include "bench/measure.h"
#include "bench/tiler/tracetiler.h"
#include "core/analysis/criticalpath.h"
#include "core/loading/loader.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

using namespace ks;
using namespace ks::bench;

int main(int argc, char** argv)
{
    std::string path = argc > 1 ? argv[1] : std::string();
    if (path.empty()) {
        peakRssMbInChild([] { return !largeTracePath(KS_BENCH_DATA).empty(); });
        path = largeTracePath(KS_BENCH_DATA);
    }
    std::printf("trace: %s (%.1f MB)\n", path.c_str(), double(std::filesystem::file_size(path)) / 1e6);

    auto t0 = Clock::now();
    const LoadResult loaded = loadTraceFile(path);
    const double loadMs = msSince(t0);
    if (!loaded.ok()) {
        std::fprintf(stderr, "cannot load %s\n", path.c_str());
        return 1;
    }
    t0 = Clock::now();
    const auto facts = facts::makeTraceFacts(loaded.trace);
    const double factsMs = msSince(t0);

    t0 = Clock::now();
    const auto analysis = analysis::criticalPathOf(facts);
    const auto steps = analysis.analyzeSteps();
    const double pathMs = msSince(t0);
    std::printf("load %.0f ms; facts %.0f ms; critical path of %zu step(s) %.0f ms (%.2fx the load; with facts "
                "%.2fx)\n",
                loadMs, factsMs, steps.size(), pathMs, pathMs / loadMs, (pathMs + factsMs) / loadMs);

    // What-if re-solve: the graph is built once per step, then scaled and solved again.
    std::string error;
    const analysis::WhatIfScaler scaler(
        {*analysis::WhatIf::parse("family:GEMM=0.5", error), *analysis::WhatIf::parse("op:aten::.*=0.8", error)});
    double worstMs = 0, totalMs = 0, worstStepMs = 0;
    std::size_t nodes = 0;
    for (const auto& s : steps) {
        auto b0 = Clock::now();
        const auto graph = analysis.builder().build(s.start, s.end);
        worstStepMs = std::max(worstStepMs, msSince(b0));
        b0 = Clock::now();
        const auto factors = scaler.factors(graph, analysis.builder().members());
        const auto solution = analysis::CriticalPathSolver::solve(graph, factors);
        const double ms = msSince(b0);
        worstMs = std::max(worstMs, ms);
        totalMs += ms;
        nodes = std::max(nodes, graph.nodeCount());
        if (solution.length > s.path.length)
            std::printf("  step %lld: what-if longer than measured?\n", s.step);
    }
    std::printf("what-if re-solve: mean %.2f ms, worst %.2f ms per step (largest graph %zu nodes; worst graph "
                "build %.2f ms)\n",
                steps.empty() ? 0.0 : totalMs / double(steps.size()), worstMs, nodes, worstStepMs);
    for (std::size_t i = 0; i < std::min<std::size_t>(steps.size(), 5); ++i)
        std::printf("  step %lld: %.3f ms, %zu nodes, %zu edges\n", steps[i].step, double(steps[i].path.length) / 1e6,
                    steps[i].nodes, steps[i].edges);
    std::printf("peak RSS %.0f MB\n", peakRssMb());
    return 0;
}
