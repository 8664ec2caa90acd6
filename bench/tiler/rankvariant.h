#pragma once
// How one generated rank departs from the real rank trace it is tiled from (bench_job, issue
// 40): its identity, a clock that is off by a constant plus per-copy jitter, a planted
// straggler (every copy of it starts later) and a planted slow link (its NCCL kernels last
// longer). The trace tiler and the summary tiler apply the same shifts, so a summary tiled
// here equals the summary of the tiled trace.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace ks::bench {

struct RankVariant {
    int rank = -1; // -1: keep the source's distributedInfo
    int worldSize = -1;
    std::int64_t clockOffsetNs = 0; // the rank's clock error, the same for every copy
    std::int64_t jitterNs = 0; // copy k moves by a value in [-jitterNs, jitterNs] (keep it < 250 µs)
    std::int64_t delayNs = 0; // straggler: every copy this much later, plus up to 10% more by copy
    std::int64_t ncclExtraNs = 0; // slow link: added to each NCCL kernel, never past the next one on its stream
    bool renumberSteps = false; // copy k's ProfilerStep#N becomes N + k × (steps per copy)

    // Where copy `copy` of the source lands, relative to copy × period.
    std::int64_t shiftOf(std::int64_t copy) const
    {
        std::uint64_t x = static_cast<std::uint64_t>(rank + 1) * 0x9E3779B97F4A7C15ull
            ^ static_cast<std::uint64_t>(copy + 1) * 0xBF58476D1CE4E5B9ull;
        x = (x ^ (x >> 31)) * 0x94D049BB133111EBull; // splitmix64's finaliser: deterministic noise
        x ^= x >> 29;
        const std::int64_t noise =
            jitterNs > 0 ? static_cast<std::int64_t>(x % static_cast<std::uint64_t>(2 * jitterNs + 1)) - jitterNs : 0;
        return clockOffsetNs + noise + delayNs + delayNs * (copy % 4) / 30;
    }
    // A NCCL kernel's new end: ncclExtraNs longer, but ending 1 µs before `nextStart`, the
    // next NCCL kernel on its stream (its track stays properly nested).
    std::int64_t ncclEnd(std::int64_t end, std::int64_t nextStart) const
    {
        return ncclExtraNs <= 0 ? end : std::max(end, std::min(end + ncclExtraNs, nextStart - 1000));
    }
};

// A generated job of `ranks` ranks (bench_job and the job view's tests): rank r is tiled from
// the real rank trace r % 2, its clock off by up to ±50 µs and jittered by ±20 µs per copy;
// one rank (the straggler) starts every copy `delayNs` later, another (the slow link) spends
// 2 ms more in each NCCL kernel, which delays nobody.
struct PlantedJob {
    int straggler = -1, slowLink = -1;
    std::vector<RankVariant> variants; // one per rank
};

inline PlantedJob plantedJob(int ranks, std::int64_t delayNs = 6'000'000)
{
    PlantedJob job;
    job.straggler = ranks - 1 - ranks / 4;
    job.slowLink = ranks >= 3 ? ranks / 4 : -1;
    for (int r = 0; r < ranks; ++r) {
        RankVariant v;
        v.rank = r;
        v.worldSize = ranks;
        v.jitterNs = 50'000;
        v.clockOffsetNs = v.shiftOf(-1); // the rank's own noise, drawn once
        v.jitterNs = 20'000;
        v.delayNs = r == job.straggler ? delayNs : 0;
        v.ncclExtraNs = r == job.slowLink ? 2'000'000 : 0;
        v.renumberSteps = true;
        job.variants.push_back(v);
    }
    return job;
}

} // namespace ks::bench
