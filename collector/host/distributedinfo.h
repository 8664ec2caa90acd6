#pragma once
// Which rank of a torch.distributed run a traced process is, from the environment torchrun
// (and torch.distributed.launch, Slurm wrappers that follow it) sets: RANK, WORLD_SIZE,
// LOCAL_RANK. Written as kineto's "distributedInfo" in a rank's own file, and per process
// as "distributedRanks" in a merged file (whose processes are several ranks).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks::collector {

struct DistributedInfo {
    int rank = -1;
    int worldSize = -1;
    int localRank = -1; // -1 when LOCAL_RANK is not set
    std::string backend = {}; // "nccl", "gloo", ...: from the collectives the rank ran; "" unknown
};

// From "K=V" entries; nullopt unless RANK and WORLD_SIZE are integers with 0 <= RANK < WORLD_SIZE.
std::optional<DistributedInfo> distributedInfoFromEnvironment(const std::vector<std::string>& environment);

// The environment a live process was started with (/proc/<pid>/environ); empty if unreadable.
std::vector<std::string> processEnvironment(std::int64_t pid);

// The torch.distributed backend an event shows: c10d's collective ranges ("nccl:all_reduce",
// "gloo:broadcast", "mpi:...", "ucc:...") and NCCL's kernels give theirs; "" for any other.
std::string_view collectiveBackend(std::string_view eventName);

// kineto's form: {"backend": "nccl", "rank": 0, "world_size": 2} (+ "local_rank"; no
// "backend" while it is unknown), and the merged form with "pid" first.
std::string distributedInfoJson(const DistributedInfo& info, std::optional<std::int64_t> pid = std::nullopt);

} // namespace ks::collector
