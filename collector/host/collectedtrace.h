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

// GPU rows use pid = device index, as kineto writes them; in a file of several processes, the
// rows of a device that several of them used are keyed "GPU <device> · pid <pid>" instead, so
// that each process's rows stay apart (the writer numbers them; their process_labels say
// "GPU <device>").
Trace buildCollectedTrace(const std::vector<RecordedProcess>& processes, const TraceBuildOptions& options);

DeviceProperties toDeviceProperties(const wire::Device& device);

} // namespace ks::collector
