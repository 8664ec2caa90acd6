#include "core/stats/kernelstats.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace ks {

namespace {

double finiteOrZero(float v) { return std::isfinite(v) && v >= 0 ? double(v) : 0.0; }

bool sameLaunchConfig(const KernelRow& row, const GpuOpInfo& g)
{
    return std::equal(row.grid.begin(), row.grid.end(), g.grid)
        && std::equal(row.block.begin(), row.block.end(), g.block) && row.registersPerThread == g.registersPerThread
        && row.sharedMemory == g.sharedMemory;
}

// The name of the op whose runtime or driver call launched each kernel: correlation id to
// the call, its External id to the cpu_op / user_annotation carrying it.
std::unordered_map<SliceId, StringId> launchingOperators(const Trace& trace, const std::vector<SliceId>& kernels)
{
    const auto& slices = trace.slices();
    std::unordered_map<std::int64_t, std::int64_t> externalOfCorrelation;
    std::unordered_map<std::int64_t, StringId> opOfExternal;
    for (SliceId s = 0; s < slices.size(); ++s) {
        const SliceClass c = trace.classOf(s);
        if ((c == SliceClass::CudaRuntime || c == SliceClass::CudaDriver) && slices.correlation[s] != kNoId)
            externalOfCorrelation[slices.correlation[s]] = slices.externalId[s];
        else if ((c == SliceClass::CpuOp || c == SliceClass::UserAnnotation) && slices.externalId[s] != kNoId)
            opOfExternal[slices.externalId[s]] = slices.name[s];
    }
    std::unordered_map<SliceId, StringId> result;
    for (const SliceId k : kernels) {
        std::int64_t external = slices.externalId[k];
        if (auto it = externalOfCorrelation.find(slices.correlation[k]);
            it != externalOfCorrelation.end() && it->second != kNoId)
            external = it->second;
        if (auto it = opOfExternal.find(external); it != opOfExternal.end())
            result[k] = it->second;
    }
    return result;
}

std::string groupKey(const Trace& trace, SliceId s, StringId op)
{
    std::string key = std::to_string(trace.slices().name[s]) + '/' + std::to_string(op);
    if (const GpuOpInfo* g = trace.gpuOpInfo(s)) {
        for (const auto v :
             {g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2], g->registersPerThread})
            key += '/' + std::to_string(v);
        key += '/' + std::to_string(g->sharedMemory);
    }
    return key;
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
    std::unordered_map<std::string, std::size_t> rowOfKey;
    const bool byOperator = options.groupByOperatorAndLaunchConfig;
    const auto operators = byOperator ? launchingOperators(trace, kernels) : std::unordered_map<SliceId, StringId>{};
    for (const SliceId s : kernels) {
        const auto op = operators.find(s);
        const StringId opName = op == operators.end() ? kEmptyString : op->second;
        auto [it, inserted] =
            rowOfKey.try_emplace(byOperator ? groupKey(trace, s, opName) : std::to_string(slices.name[s]), rows.size());
        const GpuOpInfo* g = trace.gpuOpInfo(s);
        if (inserted) {
            KernelRow row;
            row.name = std::string(trace.str(slices.name[s]));
            row.operatorName = std::string(trace.str(opName));
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
        row.total = saturatingAdd(row.total, d);
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
    std::stable_sort(rows.begin(), rows.end(),
                     [](const KernelRow& a, const KernelRow& b) { return a.total > b.total; });
    return rows;
}

} // namespace ks
