#pragma once
// kineto's per-kernel "est. achieved occupancy %" (collector-notes.md §7), for traces that
// lack it (our collector's, or kineto's when the SM count was unknown).
#include "core/model/trace.h"

#include <optional>

namespace ks::gpu {

struct KernelLaunch {
    int threadsPerBlock = 0;
    int registersPerThread = 0;
    std::int64_t sharedMemoryPerBlock = 0; // static + dynamic, as the trace's "shared memory"
    double blocksPerSm = 0.0; // grid blocks / SM count
};

// Blocks of this kernel that fit on one SM, as cudaOccMaxActiveBlocksPerMultiprocessor
// computes them with kineto's arguments; nullopt when the inputs are invalid or beyond any
// GPU's limits (more than 1024 threads per block or 255 registers per thread, ...).
std::optional<int> maxActiveBlocksPerSm(const DeviceProperties& device, const KernelLaunch& kernel);

// The documented sm_90 model (gpu-metrics.md §3): used when cuda_occupancy.h is not
// available at build time, and tested against it when it is.
std::optional<int> maxActiveBlocksPerSmSm90Model(const DeviceProperties& device, const KernelLaunch& kernel);

// lround(100 · min(activeBlocks, blocksPerSm) · threadsPerBlock / maxThreadsPerSM).
std::optional<int> estAchievedOccupancyPct(const DeviceProperties& device, const KernelLaunch& kernel);

// kineto's "warps per SM": blocks per SM · threads per block / 32 (a fixed 32, unrounded).
double warpsPerSm(const KernelLaunch& kernel);

// The launch parameters of a kernel slice; blocks per SM from the trace, else from the grid.
// nullopt when a value is missing, negative or beyond any GPU's limits.
std::optional<KernelLaunch> kernelLaunchOf(const GpuOpInfo& op, const DeviceProperties* device);

} // namespace ks::gpu
