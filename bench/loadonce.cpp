// One load of FILE with the default loader, for comparing the loaders of two source trees
// (bench/compare-loaders.sh builds this file against each): prints wall seconds, CPU seconds
// of the whole process and the events loaded. Uses only what every tree's loader has had.
#include "core/loading/loader.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace {

double processCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    const auto start = std::chrono::steady_clock::now();
    const double cpuStart = processCpuSeconds();
    const ks::LoadResult result = ks::loadTraceFile(argv[1]);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = processCpuSeconds() - cpuStart;
    if (!result.ok()) {
        std::fprintf(stderr, "%s: the load failed\n", argv[1]);
        return 1;
    }
    std::printf("%.3f %.3f %llu\n", wall, cpu, static_cast<unsigned long long>(result.trace->traceEventCount()));
    return 0;
}
