#pragma once
// TensorBoard's Kernel view: per kernel name (or, like its "Kernel Properties + Op Name"
// grouping, per name, launching operator and launch configuration), calls,
// total/mean/min/max duration, and the duration-weighted mean blocks per SM and estimated
// achieved occupancy.
#include "core/model/saturating.h"
#include "core/model/trace.h"

#include <array>
#include <limits>
#include <string>
#include <vector>

namespace ks {

struct KernelRow {
    std::string name;
    std::string operatorName; // when grouped by operator: the op that launched it ("" if none)
    std::uint64_t calls = 0;
    TimeNs total = 0;
    TimeNs min = std::numeric_limits<TimeNs>::max();
    TimeNs max = 0;
    // Weighted by duration; a kernel without the value (or with kineto's "inf") weighs in as
    // 0, as the TensorBoard plugin's fillna(0) did.
    double meanBlocksPerSm = 0.0;
    double meanEstAchievedOccupancyPct = 0.0;
    // Launch configuration of the first call; launchConfigVaries says whether later calls differ.
    std::array<std::int32_t, 3> grid{0, 0, 0};
    std::array<std::int32_t, 3> block{0, 0, 0};
    std::int32_t registersPerThread = -1;
    std::int64_t sharedMemory = -1;
    bool launchConfigVaries = false;
    std::vector<SliceId> slices; // by start time

    TimeNs mean() const { return roundedMean(total, calls); }
};

struct KernelStatsOptions {
    // One row per (name, launching operator, grid, block, registers, shared memory).
    bool groupByOperatorAndLaunchConfig = false;
    // Only kernels starting in [rangeStart, rangeEnd) count.
    TimeNs rangeStart = std::numeric_limits<TimeNs>::min();
    TimeNs rangeEnd = std::numeric_limits<TimeNs>::max();
};

// Rows sorted by total duration, longest first.
std::vector<KernelRow> computeKernelStats(const Trace& trace, const KernelStatsOptions& options = {});

} // namespace ks
