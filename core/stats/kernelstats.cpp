#include "core/stats/kernelstats.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace ks {

namespace {

double finiteOrZero(float v)
{
    return std::isfinite(v) && v >= 0 ? double(v) : 0.0;
}

bool sameLaunchConfig(const KernelRow& row, const GpuOpInfo& g)
{
    return std::equal(row.grid.begin(), row.grid.end(), g.grid) && std::equal(row.block.begin(), row.block.end(), g.block)
        && row.registersPerThread == g.registersPerThread && row.sharedMemory == g.sharedMemory;
}

} // namespace

std::vector<KernelRow> computeKernelStats(const Trace& trace, const KernelStatsOptions& options)
{
    const auto& slices = trace.slices();
    std::vector<SliceId> kernels;
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (trace.classOf(s) == SliceClass::Kernel && slices.start[s] >= options.rangeStart
            && slices.start[s] < options.rangeEnd)
            kernels.push_back(s);
    }
    std::stable_sort(kernels.begin(), kernels.end(),
                     [&](SliceId a, SliceId b) { return slices.start[a] < slices.start[b]; });

    std::vector<KernelRow> rows;
    std::vector<double> blocksWeighted, occupancyWeighted;
    std::unordered_map<StringId, std::size_t> rowOfName;
    for (const SliceId s : kernels) {
        auto [it, inserted] = rowOfName.try_emplace(slices.name[s], rows.size());
        const GpuOpInfo* g = trace.gpuOpInfo(s);
        if (inserted) {
            KernelRow row;
            row.name = std::string(trace.str(slices.name[s]));
            if (g) {
                std::copy(g->grid, g->grid + 3, row.grid.begin());
                std::copy(g->block, g->block + 3, row.block.begin());
                row.registersPerThread = g->registersPerThread;
                row.sharedMemory = g->sharedMemory;
            }
            rows.push_back(std::move(row));
            blocksWeighted.push_back(0.0);
            occupancyWeighted.push_back(0.0);
        }
        KernelRow& row = rows[it->second];
        const TimeNs d = slices.duration[s];
        ++row.calls;
        row.total += d;
        row.min = std::min(row.min, d);
        row.max = std::max(row.max, d);
        row.slices.push_back(s);
        if (g) {
            blocksWeighted[it->second] += finiteOrZero(g->blocksPerSm) * double(d);
            occupancyWeighted[it->second] += finiteOrZero(g->estAchievedOccupancyPct) * double(d);
            if (!inserted && !sameLaunchConfig(row, *g))
                row.launchConfigVaries = true;
        }
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].total > 0) {
            rows[i].meanBlocksPerSm = blocksWeighted[i] / double(rows[i].total);
            rows[i].meanEstAchievedOccupancyPct = occupancyWeighted[i] / double(rows[i].total);
        }
    }
    std::stable_sort(rows.begin(), rows.end(), [](const KernelRow& a, const KernelRow& b) { return a.total > b.total; });
    return rows;
}

} // namespace ks
