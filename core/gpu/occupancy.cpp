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

// Beyond these no GPU launches a kernel (CUDA's limits on every architecture so far, or an
// order of magnitude above what any device reports): such values come from a damaged or
// crafted trace, and the occupancy stays unknown rather than overflowing int arithmetic here
// or inside cuda_occupancy.h.
constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kMaxRegistersPerThread = 255;
constexpr std::int64_t kMaxSharedMemoryPerBlock = 16 << 20;
constexpr int kMaxWarpSize = 1024;
constexpr int kMaxThreadsPerSm = 1 << 16;
constexpr int kMaxRegistersPerSm = 1 << 24;
constexpr std::int64_t kMaxSharedMemoryPerSm = std::int64_t(1) << 30;

bool plausibleLaunch(const KernelLaunch& kernel)
{
    return kernel.threadsPerBlock > 0 && kernel.threadsPerBlock <= kMaxThreadsPerBlock && kernel.registersPerThread >= 0
        && kernel.registersPerThread <= kMaxRegistersPerThread && kernel.sharedMemoryPerBlock >= 0
        && kernel.sharedMemoryPerBlock <= kMaxSharedMemoryPerBlock && std::isfinite(kernel.blocksPerSm)
        && kernel.blocksPerSm >= 0.0;
}

bool plausibleDevice(const DeviceProperties& device)
{
    const auto within = [](std::int64_t value, std::int64_t max) { return value >= 0 && value <= max; };
    return device.maxThreadsPerMultiprocessor > 0 && device.maxThreadsPerMultiprocessor <= kMaxThreadsPerSm
        && device.warpSize > 0 && device.warpSize <= kMaxWarpSize && within(device.maxThreadsPerBlock, kMaxThreadsPerSm)
        && within(device.regsPerBlock, kMaxRegistersPerSm) && within(device.regsPerMultiprocessor, kMaxRegistersPerSm)
        && within(device.sharedMemPerBlock, kMaxSharedMemoryPerSm)
        && within(device.sharedMemPerMultiprocessor, kMaxSharedMemoryPerSm)
        && within(device.sharedMemPerBlockOptin, kMaxSharedMemoryPerSm);
}

bool validInputs(const DeviceProperties& device, const KernelLaunch& kernel)
{
    return plausibleLaunch(kernel) && plausibleDevice(device);
}

} // namespace

std::optional<int> maxActiveBlocksPerSmSm90Model(const DeviceProperties& device, const KernelLaunch& kernel)
{
    if (!validInputs(device, kernel))
        return std::nullopt;
    if (kernel.sharedMemoryPerBlock > kDefaultSharedMemLimit)
        return 0;
    // int64 throughout: the inputs are bounded, but their products need not fit an int.
    constexpr std::int64_t kMaxBlocksPerSm = 32;
    constexpr std::int64_t kRegisterAllocationUnit = 256; // registers, per warp
    const std::int64_t warpSize = device.warpSize;
    const std::int64_t warpsPerBlock = (kernel.threadsPerBlock + warpSize - 1) / warpSize;
    const std::int64_t maxWarps = device.maxThreadsPerMultiprocessor / warpSize;
    std::int64_t blocks = std::min(kMaxBlocksPerSm, maxWarps / warpsPerBlock);

    if (kernel.registersPerThread > 0) {
        const std::int64_t regsPerWarp = (kernel.registersPerThread * warpSize + kRegisterAllocationUnit - 1)
            / kRegisterAllocationUnit * kRegisterAllocationUnit;
        const std::int64_t regsPerSm = device.regsPerMultiprocessor > 0 ? device.regsPerMultiprocessor : 65536;
        // Registers are allocated per warp scheduler (4 on sm_90), warps never straddle them.
        constexpr std::int64_t kSchedulers = 4;
        const std::int64_t warpsPerScheduler = (regsPerSm / kSchedulers) / regsPerWarp;
        blocks = std::min(blocks, warpsPerScheduler * kSchedulers / warpsPerBlock);
    }
    if (kernel.sharedMemoryPerBlock > 0) {
        const std::int64_t smemPerSm =
            device.sharedMemPerMultiprocessor > 0 ? device.sharedMemPerMultiprocessor : 233472;
        const std::int64_t granule = 128;
        const std::int64_t perBlock =
            (kernel.sharedMemoryPerBlock + kReservedSharedMemPerBlock + granule - 1) / granule * granule;
        blocks = std::min(blocks, smemPerSm / perBlock);
    }
    return int(blocks);
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

double warpsPerSm(const KernelLaunch& kernel) { return kernel.blocksPerSm * kernel.threadsPerBlock / 32.0; }

std::optional<KernelLaunch> kernelLaunchOf(const GpuOpInfo& op, const DeviceProperties* device)
{
    // Each dimension is checked before multiplying: three int32 of a crafted trace overflow.
    std::int64_t threads = 1;
    for (const std::int32_t extent : op.block) {
        if (extent <= 0 || extent > kMaxThreadsPerBlock)
            return std::nullopt;
        threads *= extent;
    }
    KernelLaunch k;
    k.threadsPerBlock = int(threads); // at most 1024³
    k.registersPerThread = op.registersPerThread;
    k.sharedMemoryPerBlock = op.sharedMemory;
    if (op.blocksPerSm >= 0.0f && std::isfinite(op.blocksPerSm)) {
        k.blocksPerSm = op.blocksPerSm;
    } else if (device && device->numSms > 0) {
        if (op.grid[0] < 0 || op.grid[1] < 0 || op.grid[2] < 0)
            return std::nullopt;
        k.blocksPerSm = double(op.grid[0]) * op.grid[1] * op.grid[2] / device->numSms;
    } else {
        return std::nullopt;
    }
    if (!plausibleLaunch(k))
        return std::nullopt;
    return k;
}

} // namespace ks::gpu
