#include "core/gpu/occupancy.h"

#include <algorithm>
#include <climits>
#include <cmath>

#ifdef KS_HAVE_CUDA_OCCUPANCY
#include <cuda_occupancy.h>
#endif

namespace ks::gpu {

namespace {

// Not in kineto's deviceProperties; 1 KB on every architecture since sm_80.
constexpr std::int64_t kReservedSharedMemPerBlock = 1024;
// Above this, a block needs the opt-in limit, which kineto does not request: 0 blocks.
constexpr std::int64_t kDefaultSharedMemLimit = 48 * 1024;

bool validInputs(const DeviceProperties& device, const KernelLaunch& kernel)
{
    return kernel.threadsPerBlock > 0 && kernel.registersPerThread >= 0
        && kernel.sharedMemoryPerBlock >= 0 && device.maxThreadsPerMultiprocessor > 0
        && device.warpSize > 0;
}

} // namespace

std::optional<int> maxActiveBlocksPerSmSm90Model(const DeviceProperties& device, const KernelLaunch& kernel)
{
    if (!validInputs(device, kernel))
        return std::nullopt;
    if (kernel.sharedMemoryPerBlock > kDefaultSharedMemLimit)
        return 0;
    constexpr int kMaxBlocksPerSm = 32;
    constexpr int kRegisterAllocationUnit = 256; // registers, per warp
    const int warpsPerBlock = (kernel.threadsPerBlock + device.warpSize - 1) / device.warpSize;
    const int maxWarps = device.maxThreadsPerMultiprocessor / device.warpSize;
    int blocks = std::min(kMaxBlocksPerSm, maxWarps / warpsPerBlock);

    if (kernel.registersPerThread > 0) {
        const int regsPerWarp = (kernel.registersPerThread * device.warpSize + kRegisterAllocationUnit - 1)
            / kRegisterAllocationUnit * kRegisterAllocationUnit;
        const int regsPerSm = device.regsPerMultiprocessor > 0 ? device.regsPerMultiprocessor : 65536;
        // Registers are allocated per warp scheduler (4 on sm_90), warps never straddle them.
        constexpr int kSchedulers = 4;
        const int warpsPerScheduler = (regsPerSm / kSchedulers) / regsPerWarp;
        blocks = std::min(blocks, warpsPerScheduler * kSchedulers / warpsPerBlock);
    }
    if (kernel.sharedMemoryPerBlock > 0) {
        const std::int64_t smemPerSm = device.sharedMemPerMultiprocessor > 0 ? device.sharedMemPerMultiprocessor : 233472;
        const std::int64_t granule = 128;
        const std::int64_t perBlock = (kernel.sharedMemoryPerBlock + kReservedSharedMemPerBlock + granule - 1)
            / granule * granule;
        blocks = std::min<std::int64_t>(blocks, smemPerSm / perBlock);
    }
    return blocks;
}

std::optional<int> maxActiveBlocksPerSm(const DeviceProperties& device, const KernelLaunch& kernel)
{
#ifdef KS_HAVE_CUDA_OCCUPANCY
    if (!validInputs(device, kernel))
        return std::nullopt;
    cudaOccDeviceProp prop;
    prop.computeMajor = device.computeMajor;
    prop.computeMinor = device.computeMinor;
    prop.maxThreadsPerBlock = device.maxThreadsPerBlock;
    prop.maxThreadsPerMultiprocessor = device.maxThreadsPerMultiprocessor;
    prop.regsPerBlock = device.regsPerBlock;
    prop.regsPerMultiprocessor = device.regsPerMultiprocessor;
    prop.warpSize = device.warpSize;
    prop.sharedMemPerBlock = size_t(device.sharedMemPerBlock);
    prop.sharedMemPerMultiprocessor = size_t(device.sharedMemPerMultiprocessor);
    prop.numSms = device.numSms;
    prop.sharedMemPerBlockOptin = size_t(device.sharedMemPerBlockOptin);
    prop.reservedSharedMemPerBlock = size_t(kReservedSharedMemPerBlock);

    cudaOccFuncAttributes attributes;
    attributes.maxThreadsPerBlock = INT_MAX;
    attributes.numRegs = kernel.registersPerThread;
    // The trace only has static + dynamic together; the calculator adds them anyway.
    attributes.sharedSizeBytes = size_t(kernel.sharedMemoryPerBlock);
    attributes.partitionedGCConfig = PARTITIONED_GC_OFF;
    attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_DEFAULT;
    attributes.maxDynamicSharedSizeBytes = 0;

    cudaOccDeviceState state;
    cudaOccResult result;
    if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attributes, &state, kernel.threadsPerBlock, 0)
        != CUDA_OCC_SUCCESS)
        return std::nullopt;
    return result.activeBlocksPerMultiprocessor;
#else
    return maxActiveBlocksPerSmSm90Model(device, kernel);
#endif
}

std::optional<int> estAchievedOccupancyPct(const DeviceProperties& device, const KernelLaunch& kernel)
{
    const auto active = maxActiveBlocksPerSm(device, kernel);
    if (!active)
        return std::nullopt;
    const double blocks = std::min(double(*active), kernel.blocksPerSm);
    return int(std::lround(100.0 * blocks * kernel.threadsPerBlock / device.maxThreadsPerMultiprocessor));
}

std::optional<KernelLaunch> kernelLaunchOf(const GpuOpInfo& op, const DeviceProperties* device)
{
    KernelLaunch k;
    k.threadsPerBlock = op.block[0] * op.block[1] * op.block[2];
    k.registersPerThread = op.registersPerThread;
    k.sharedMemoryPerBlock = op.sharedMemory;
    if (op.blocksPerSm >= 0.0f && std::isfinite(op.blocksPerSm)) {
        k.blocksPerSm = op.blocksPerSm;
    } else if (device && device->numSms > 0) {
        k.blocksPerSm = double(op.grid[0]) * op.grid[1] * op.grid[2] / device->numSms;
    } else {
        return std::nullopt;
    }
    if (k.threadsPerBlock <= 0 || k.registersPerThread < 0 || k.sharedMemoryPerBlock < 0)
        return std::nullopt;
    return k;
}

} // namespace ks::gpu
