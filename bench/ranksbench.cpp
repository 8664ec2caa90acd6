// Multi-rank benchmark (issue 13):
//  1. 8 × the ~745k-event (200 MB) tiled trace opened as one workspace, one loader per file
//     on all cores: wall time and peak RSS against one file's peak RSS (measured in a child).
//  2. Collective matching on 8 ranks tiled from the DDP fixtures to a similar size
//     (ranks 0/1 alternate, so the workspace warns of duplicate ranks; matching is per member).
//   bench_ranks [FILE]     FILE defaults to the tiled trace, made on first use.
#include "bench/measure.h"
#include "bench/tiler/tracetiler.h"
#include "core/analysis/ranks.h"

#include <cstdio>
#include <filesystem>
#include <thread>

namespace {

using namespace ks::bench;

constexpr int kRanks = 8;

std::string tiledRank(int source, std::uint64_t copies)
{
    const auto path =
        (std::filesystem::temp_directory_path()
         / ("kinetoscope-ddp-rank" + std::to_string(source) + "-x" + std::to_string(copies) + ".pt.trace.json"))
            .string();
    if (!std::filesystem::exists(path)) {
        const std::string from =
            std::string(KS_BENCH_DATA) + "/ddp_rank" + std::to_string(source) + ".pt.trace.json.gz";
        peakRssMbInChild([&] { return ks::bench::tileTrace(from, path + ".tmp", 0, copies).error.empty(); });
        std::filesystem::rename(path + ".tmp", path);
    }
    return path;
}

} // namespace

int main(int argc, char** argv)
{
    std::string path = argc > 1 ? argv[1] : std::string();
    if (path.empty()) {
        peakRssMbInChild([] { return !ks::bench::largeTracePath(KS_BENCH_DATA).empty(); });
        path = ks::bench::largeTracePath(KS_BENCH_DATA);
    }
    const double fileMb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
    std::printf("trace: %s (%.1f MB); %d ranks, %u cores\n", path.c_str(), fileMb, kRanks,
                std::thread::hardware_concurrency());

    const double singleRss = peakRssMbInChild([&] { return ks::loadTraceFile(path).ok(); });
    auto t0 = Clock::now();
    const double cpu0 = cpuSeconds();
    double loadSeconds = 0, loadCpu = 0, analysisSeconds = 0;
    std::size_t members = 0;
    {
        auto loaded = ks::analysis::loadWorkspace(std::vector<std::string>(kRanks, path));
        loadSeconds = secondsSince(t0);
        loadCpu = cpuSeconds() - cpu0;
        members = loaded.workspace.size();
        t0 = Clock::now();
        loaded.workspace.alignAbsoluteClock();
        ks::analysis::analyzeRanks(loaded.workspace);
        analysisSeconds = secondsSince(t0);
    }
    const double rss = peakRssMb();
    std::printf("load %d × %.0f MB: %.2f s wall, %.2f s CPU (%zu members); rank analysis (no collectives) %.2f s\n",
                kRanks, fileMb, loadSeconds, loadCpu, members, analysisSeconds);
    std::printf("peak RSS: %.0f MB; one file alone %.0f MB, × %d = %.0f MB (target: at most that)\n", rss, singleRss,
                kRanks, singleRss * kRanks);

    // 110 copies of each DDP rank: ~745k events and 660 NCCL kernels per rank.
    constexpr std::uint64_t kCopies = 110;
    std::vector<std::string> files;
    for (int r = 0; r < kRanks; ++r)
        files.push_back(tiledRank(r % 2, kCopies));
    auto loaded = ks::analysis::loadWorkspace(files);
    loaded.workspace.alignAbsoluteClock();
    t0 = Clock::now();
    const auto report = ks::analysis::analyzeRanks(loaded.workspace);
    const double rankSeconds = secondsSince(t0);
    std::printf("collectives: %zu matched across %zu ranks (%.0f MB each); matching %.1f ms; whole rank analysis "
                "(args read back, per-rank tables) %.2f s\n",
                report.matching.collectives.size(), loaded.workspace.size(),
                static_cast<double>(std::filesystem::file_size(files[0])) / 1e6, report.matching.matchSeconds * 1000.0,
                rankSeconds);
    return 0;
}
