#pragma once
// The dependency graph behind the critical path (issue 36): time points of one step (the start
// and end of every CPU op, runtime call and GPU op inside it) joined by edges that say "this
// cannot happen before that, plus this much". Plain arrays, one entry per node and edge.
//
// Every edge's weight is at most the time between its ends, and the builder gives every node
// one edge whose weight is exactly that (a "tight" edge), so the longest path from the source
// reproduces every node's measured time. A what-if rescales some weights and re-solves.
#include "core/model/trace.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace ks::analysis {

// What a segment of the path is spent on (the breakdown's keys, in this order).
enum class PathKind : std::uint8_t {
    CpuOp, // a CPU op's own time (or an annotation's)
    Launch, // in a runtime launch call, or from the call to its GPU op starting
    Kernel,
    Memcpy,
    Memset,
    SyncWait, // a host wait returning after the GPU work it waited for
    GpuIdle, // a stream waiting for the work before it, or for another stream's event
    CollectiveWait, // a collective kernel waiting for the last rank
    Other, // time on a thread between ops, unexplained gaps, the step's tail
};
inline constexpr int kPathKindCount = 9;
std::string_view pathKindName(PathKind kind); // "cpu_op", "launch", ...
bool pathKindFromName(std::string_view name, PathKind& kind);

// A slice of one member (rank) of the graph.
struct PathItem {
    std::uint32_t member = 0;
    SliceId slice = kNoSlice;
};

struct CriticalPathGraph {
    // Nodes: times on the common axis (member time + member offset).
    std::vector<TimeNs> nodeTime;
    // Edges, in any order.
    std::vector<std::uint32_t> edgeFrom, edgeTo;
    std::vector<TimeNs> edgeWeight;
    std::vector<PathKind> edgeKind;
    std::vector<std::uint32_t> edgeItem; // index into items, kNoIndex when none
    std::vector<std::uint8_t> edgeScalable; // a duration (op, call, GPU op) a what-if may rescale
    // A dependency that factor 0 removes, not only shortens: a host wait's on the GPU op it
    // returned after (the call no longer blocks), a collective's on the last rank to arrive.
    std::vector<std::uint8_t> edgeRemovable;
    std::vector<PathItem> items;
    std::vector<std::uint32_t> itemParent; // enclosing host item on its thread, kNoIndex
    // Launch calls that ended before the window, of GPU ops inside it: kept at the window's
    // start so that those GPU ops keep their launch dependency.
    std::vector<std::uint8_t> itemCalledBefore;

    // A collective kernel that waited for the last rank to arrive: the edge from that rank's
    // kernel start (the cross-rank edge) and the waiting kernel's start node. On the path, the
    // time from the one to the other is the waiting rank's collective_wait.
    struct CollectiveJoin {
        std::uint32_t edge = 0;
        std::uint32_t waitingStart = 0;
    };
    std::vector<CollectiveJoin> collectiveJoins;

    std::uint32_t source = 0, sink = 0;
    std::vector<std::uint32_t> topoOrder; // every node, each after all its predecessors
    std::vector<std::uint32_t> outBegin; // CSR of out-edges by node (size nodes + 1)
    std::vector<std::uint32_t> outEdges;

    std::size_t droppedEdges = 0; // pointing back in time (clock skew, broken flows)
    std::size_t cycleNodes = 0; // left in a cycle (ordered by time instead)
    std::size_t unexplainedNodes = 0; // no dependency explained their time: a gap edge added

    std::size_t nodeCount() const { return nodeTime.size(); }
    std::size_t edgeCount() const { return edgeFrom.size(); }

    std::uint32_t addNode(TimeNs t)
    {
        nodeTime.push_back(t);
        return std::uint32_t(nodeTime.size() - 1);
    }
    // Adds from -> to unless it points back in time (counted in droppedEdges). Returns the edge
    // index or kNoIndex.
    std::uint32_t addEdge(std::uint32_t from, std::uint32_t to, TimeNs weight, PathKind kind, std::uint32_t item,
                          bool scalable = false, bool removable = false);
    // Gives every node without a tight in-edge a gap edge from its latest predecessor (or the
    // source), then orders the nodes (Kahn; nodes left in a cycle follow by time, each given a
    // gap edge from before it where its tight edge came from inside the cycle).
    void finish();

private:
    void indexOutEdges(); // outBegin and outEdges from the edge lists
    void explainAfterCycles();
};

} // namespace ks::analysis
