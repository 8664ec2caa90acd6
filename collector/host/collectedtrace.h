#pragma once
// Builds the immutable trace model from what the collector has recorded so far. Called
// for every live snapshot and once at the end; the inputs are copies, so the receiving
// thread keeps running while a snapshot is built.
#include "collector/host/processrecorder.h"

#include <memory>
#include <vector>

namespace ks::collector {

struct TraceBuildOptions {
    std::int64_t baseNs = 0; // Unix-epoch ns of ts 0 (session start floored to 1 s)
    std::shared_ptr<const TextArena> arena;
};

// One process: GPU rows use pid = device index, as kineto writes them. Several processes:
// GPU rows are keyed "GPU <device> · pid <pid>" so that devices of different processes stay
// apart (the event text keeps kineto's numeric pid).
Trace buildCollectedTrace(const std::vector<RecordedProcess>& processes, const TraceBuildOptions& options);

DeviceProperties toDeviceProperties(const wire::Device& device);

} // namespace ks::collector
