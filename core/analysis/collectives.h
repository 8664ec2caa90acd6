#pragma once
// NCCL collectives across the ranks of a workspace (issue 13): each rank's collective
// kernels, and the matching of the k-th collective of a process group on one rank with the
// k-th on every other rank, checked by name and message size.
#include "core/analysis/workspace.h"

#include <string>
#include <vector>

namespace ks::analysis {

// One NCCL kernel of one member, with the args kineto attaches to it. A kernel launched
// before the profiling window carries none of them (`attributed` false): it is a collective
// by its name only, and its process group is guessed from its stream.
struct CollectiveKernel {
    SliceId slice = kNoSlice;
    TimeNs start = 0, end = 0; // member time (no offset)
    std::int64_t stream = -1;
    std::string name; // "allreduce": Collective name, else from the kernel name
    std::string processGroup; // Process Group Name; "" when unknown
    std::string groupRanks; // Process Group Ranks as written, "[0, 1]"
    std::string dtype; // "Float"
    std::int64_t inElements = -1, outElements = -1;
    bool attributed = false;

    std::int64_t bytes() const; // In msg nelems × the dtype's size; -1 when unknown
    bool sameCollectiveAs(const CollectiveKernel& other) const; // name and message sizes
};

// Is this a NCCL kernel name ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)", "ncclKernel_...")?
bool isNcclKernelName(std::string_view name);
// "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)" -> "allreduce"; "" if not recognisable.
std::string collectiveNameFromKernel(std::string_view kernelName);

// The member's NCCL kernels in time order (args read back in one batched pass).
std::vector<CollectiveKernel> collectiveKernelsOf(const WorkspaceMember& member);

struct CollectiveParticipant {
    std::size_t member = 0;
    int rank = -1;
    std::size_t kernel = 0; // index into CollectiveMatching::kernels[member]
    SliceId slice = kNoSlice; // the NCCL kernel in that member's trace
    TimeNs start = 0, end = 0; // on the workspace axis (member offset applied)
    TimeNs wait = 0; // until the last rank's start
};

struct MatchedCollective {
    std::string processGroup; // "?" when no kernel carried args (collector traces)
    std::size_t seq = 0; // issue order within the group
    std::string name;
    std::int64_t bytes = -1;
    std::string dtype;
    std::vector<CollectiveParticipant> ranks; // ascending rank
    int lastRank = -1; // the last to arrive (start)
    TimeNs lastStart = 0;
    TimeNs maxWait = 0;
    bool mismatch = false; // name or size differs between ranks
    bool complete = false; // every rank of the group that is open took part
};

struct CollectiveMatching {
    std::vector<std::vector<CollectiveKernel>> kernels; // per workspace member
    std::vector<MatchedCollective> collectives; // by group, then seq
    std::vector<std::string> warnings; // mismatches, missing ranks, shifts
    double matchSeconds = 0.0; // matching only (not reading args)
};

// One rank's collective kernels and where its clock sits on the common axis: from a loaded
// workspace member or from a rank summary (core/analysis/ranksummary.h).
struct RankCollectives {
    std::string label; // for warnings: "Rank 1 · ddp_rank1"
    int rank = -1;
    TimeNs offset = 0; // added to the kernels' times to place them on the common axis
    TimeNs traceStart = 0; // the rank's first event, in its own time
    std::vector<CollectiveKernel> kernels; // in time order
};

// Matches every process group's collectives across the ranks, on the common axis.
CollectiveMatching matchCollectives(std::vector<RankCollectives> ranks);
// The same for the workspace's members, on the workspace's axis (align it first; the absolute
// clock is right for one host).
CollectiveMatching matchCollectives(const Workspace& workspace);

} // namespace ks::analysis
