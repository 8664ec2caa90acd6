// Diff benchmark (issue 12): the ~745k-event (200 MB) tiled trace compared with itself:
// parallel load of both sides, the diff itself, and peak RSS against one model's size.
//   bench_diff [FILE]      FILE defaults to the tiled trace, made on first use.
#include "bench/measure.h"
#include "bench/tiler/tracetiler.h"
#include "core/analysis/diff.h"

#include <cstdio>
#include <filesystem>

int main(int argc, char** argv)
{
    using namespace ks::bench;
    std::string path = argc > 1 ? argv[1] : std::string();
    if (path.empty()) {
        // tiling in a child keeps it out of our RSS
        peakRssMbInChild([] { return !ks::bench::largeTracePath(KS_BENCH_DATA).empty(); });
        path = ks::bench::largeTracePath(KS_BENCH_DATA);
    }
    const double fileMb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
    std::printf("trace: %s (%.1f MB), compared with itself\n", path.c_str(), fileMb);

    auto t0 = Clock::now();
    double cpu0 = cpuSeconds();
    auto loaded = ks::analysis::loadDiffPair(path, path);
    const double loadSeconds = secondsSince(t0), loadCpu = cpuSeconds() - cpu0;
    if (loaded.error)
        return std::fprintf(stderr, "%s\n", loaded.error->c_str()), 1;
    const auto& base = loaded.workspace.members()[0];
    const double modelMb = static_cast<double>(base.trace->memoryBytes()) / 1e6;
    const double rssAfterLoad = peakRssMb();

    t0 = Clock::now();
    cpu0 = cpuSeconds();
    const auto report = ks::analysis::diffTraces(base, loaded.workspace.members()[1]);
    const double diffSeconds = secondsSince(t0), diffCpu = cpuSeconds() - cpu0;
    std::printf("load both sides (2 threads): %.2f s wall, %.2f s CPU\n", loadSeconds, loadCpu);
    std::printf("diff: %.2f s wall, %.2f s CPU (%zu kernel rows, %zu op rows; speed-up %.3f)\n", diffSeconds, diffCpu,
                report.kernels.size(), report.ops.size(), report.speedup);
    std::printf("peak RSS: %.0f MB after loading, %.0f MB after the diff; one model %.0f MB\n", rssAfterLoad,
                peakRssMb(), modelMb);
    return 0;
}
