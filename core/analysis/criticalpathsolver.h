#pragma once
// Longest path through a critical-path graph: one pass over the nodes in topological order
// (linear in nodes + edges), with every edge's weight optionally rescaled by a what-if.
#include "core/analysis/criticalpathgraph.h"

#include <span>
#include <vector>

namespace ks::analysis {

struct PathSolution {
    std::vector<TimeNs> time; // each node's earliest time given its dependencies
    std::vector<std::uint32_t> bestEdge; // the edge that set it (kNoIndex for the source)
    std::vector<TimeNs> weight; // every edge's weight after the what-ifs
    TimeNs length = 0; // sink - source
};

class CriticalPathSolver {
public:
    // `factors`: per edge (empty: all 1); 0 on a host wait's edge removes it. Among
    // dependencies that give a node the same time,
    // the one from the latest node wins (the last to be satisfied).
    static PathSolution solve(const CriticalPathGraph& graph, std::span<const float> factors = {});
    // The edges from the source to the sink, in order.
    static std::vector<std::uint32_t> pathEdges(const CriticalPathGraph& graph, const PathSolution& solution);
};

} // namespace ks::analysis
