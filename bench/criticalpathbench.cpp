// Critical path benchmark (issue 36): the critical path of every step of a large trace
// against the time `info` takes to load it (the same loadTraceFile; target: at most 2x), and a
// what-if re-solve per step (target: at most 50 ms): on the step's built graph (factors and
// solve), and as the dock and the CLI do it (the graph built again with the what-ifs).
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

    // Wall and CPU time of each phase (the build machine is shared: CPU time is the figure to
    // compare when it is loaded).
    auto t0 = Clock::now();
    double c0 = cpuSeconds();
    const LoadResult loaded = loadTraceFile(path);
    const double loadMs = msSince(t0), loadCpuMs = 1000 * (cpuSeconds() - c0);
    if (!loaded.ok()) {
        std::fprintf(stderr, "cannot load %s\n", path.c_str());
        return 1;
    }
    t0 = Clock::now();
    c0 = cpuSeconds();
    const auto facts = facts::makeTraceFacts(loaded.trace);
    const double factsMs = msSince(t0), factsCpuMs = 1000 * (cpuSeconds() - c0);

    t0 = Clock::now();
    c0 = cpuSeconds();
    const auto analysis = analysis::criticalPathOf(facts);
    const auto steps = analysis.analyzeSteps();
    const double pathMs = msSince(t0), pathCpuMs = 1000 * (cpuSeconds() - c0);
    std::printf("load (as info) %.0f ms wall, %.0f ms CPU; facts %.0f ms wall, %.0f ms CPU\n", loadMs, loadCpuMs,
                factsMs, factsCpuMs);
    std::printf("critical path of every step (%zu): %.0f ms wall (%.2fx the load; with facts %.2fx), %.0f ms CPU "
                "(%.2fx the load's CPU; with facts %.2fx)\n",
                steps.size(), pathMs, pathMs / loadMs, (pathMs + factsMs) / loadMs, pathCpuMs, pathCpuMs / loadCpuMs,
                (pathCpuMs + factsCpuMs) / loadCpuMs);

    // What-if re-solve: the graph is built once per step, then scaled and solved again.
    std::string error;
    const analysis::WhatIfScaler scaler(
        {*analysis::WhatIf::parse("family:GEMM=0.5", error), *analysis::WhatIf::parse("op:aten::.*=0.8", error)});
    double worstMs = 0, totalMs = 0, worstStepMs = 0, worstCpuMs = 0, totalCpuMs = 0;
    std::size_t nodes = 0;
    for (const auto& s : steps) {
        auto b0 = Clock::now();
        const auto graph = analysis.builder().build(s.start, s.end);
        worstStepMs = std::max(worstStepMs, msSince(b0));
        b0 = Clock::now();
        const double cpu0 = cpuSeconds();
        const auto factors = scaler.factors(graph, analysis.builder().members());
        const auto solution = analysis::CriticalPathSolver::solve(graph, factors);
        const double ms = msSince(b0), cpuMs = 1000 * (cpuSeconds() - cpu0);
        worstMs = std::max(worstMs, ms);
        totalMs += ms;
        worstCpuMs = std::max(worstCpuMs, cpuMs);
        totalCpuMs += cpuMs;
        nodes = std::max(nodes, graph.nodeCount());
        if (solution.length > s.path.length)
            std::printf("  step %lld: what-if longer than measured?\n", s.step);
    }
    const double count = steps.empty() ? 1.0 : double(steps.size());
    std::printf("what-if re-solve per step: wall mean %.2f ms, worst %.2f ms; CPU mean %.2f ms, worst %.2f ms "
                "(largest graph %zu nodes; worst graph build %.2f ms wall)\n",
                totalMs / count, worstMs, totalCpuMs / count, worstCpuMs, nodes, worstStepMs);
    t0 = Clock::now();
    c0 = cpuSeconds();
    const auto rebuilt = analysis.analyzeSteps(
        {*analysis::WhatIf::parse("family:GEMM=0.5", error), *analysis::WhatIf::parse("op:aten::.*=0.8", error)});
    const double rebuiltMs = msSince(t0), rebuiltCpuMs = 1000 * (cpuSeconds() - c0);
    std::printf("what-if with the graph built again and both paths described (dock, CLI): per step %.2f ms wall, "
                "%.2f ms CPU\n",
                rebuiltMs / count, rebuiltCpuMs / count);
    for (std::size_t i = 0; i < std::min<std::size_t>(steps.size(), 5); ++i)
        std::printf("  step %lld: %.3f ms, %zu nodes, %zu edges\n", steps[i].step, double(steps[i].path.length) / 1e6,
                    steps[i].nodes, steps[i].edges);
    std::printf("peak RSS %.0f MB\n", peakRssMb());
    return 0;
}
