#pragma once
// Builds the critical-path graph of one time window (a step, or a selected range) from the
// facts of one trace, or of several ranks with their matched collectives.
//
// Edges: CPU ops on each thread by nesting and order; launch -> GPU op (correlation, 1 -> N
// for CUDA graphs); GPU ops in order on each stream; stream -> stream through
// cudaEventRecord / cudaStreamWaitEvent (the recorded stream is the one the thread last
// launched onto, the waiting one the one it launches onto next); host waits (synchronize
// calls, blocking copies) <- the GPU op they returned after; thread hand-offs between threads
// that fwdbwd flows join (forward -> autograd thread and back); a collective kernel <- the
// last-arriving rank's matching kernel.
#include "core/analysis/collectives.h"
#include "core/analysis/criticalpathgraph.h"
#include "core/facts/tracefacts.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ks::analysis {

struct PathMember {
    std::shared_ptr<const facts::TraceFacts> facts;
    TimeNs offset = 0; // added to the member's times to place them on the common axis
    std::string label; // "Rank 1 · ddp_rank1" (prefixes track names when there are several)
};

class CriticalPathGraphBuilder {
public:
    // `matching` (may be null) indexes members like `members` (a workspace's members).
    CriticalPathGraphBuilder(std::vector<PathMember> members, const CollectiveMatching* matching = nullptr);

    // The graph of [start, end] on the common axis; its sink is at `end` and only `primary`'s
    // tracks end there (the other ranks only feed it through collectives).
    CriticalPathGraph build(TimeNs start, TimeNs end, std::uint32_t primary = 0) const;

    const std::vector<PathMember>& members() const { return m_members; }

private:
    std::vector<PathMember> m_members;
    const CollectiveMatching* m_matching = nullptr;
    // Per member: pairs of CPU tracks that fwdbwd flows join (both directions).
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> m_linkedTracks;
};

} // namespace ks::analysis
