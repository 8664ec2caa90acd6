// Makes a large trace for the scale benchmarks (issue 15): K copies of IN laid end to end
// in time, ids shifted per copy (see bench/tiler/tracetiler.h), written as plain JSON.
//   bench_tile IN OUT K     e.g. big.pt.trace.json.gz (35 MB of JSON) × 113 ≈ 4 GB
#include "bench/tiler/tracetiler.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv)
{
    if (argc != 4 || std::atoll(argv[3]) <= 0)
        return std::fprintf(stderr, "usage: bench_tile IN OUT K   (K copies of the trace IN, K >= 1)\n"), 2;
    const auto start = std::chrono::steady_clock::now();
    const auto result = ks::bench::tileTrace(argv[1], argv[2], 0, std::strtoull(argv[3], nullptr, 10));
    if (!result.error.empty())
        return std::fprintf(stderr, "bench_tile: %s\n", result.error.c_str()), 1;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s: %llu events, %.1f MB (%.1f s)\n", argv[2], static_cast<unsigned long long>(result.events),
                static_cast<double>(result.bytes) / 1e6, s);
    return 0;
}
