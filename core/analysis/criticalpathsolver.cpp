#include "core/analysis/criticalpathsolver.h"

#include <algorithm>
#include <cmath>

namespace ks::analysis {

PathSolution CriticalPathSolver::solve(const CriticalPathGraph& graph, std::span<const float> factors)
{
    PathSolution s;
    const std::size_t n = graph.nodeCount();
    s.weight = graph.edgeWeight;
    if (factors.size() == s.weight.size()) {
        for (std::size_t e = 0; e < s.weight.size(); ++e)
            if (factors[e] != 1.0f)
                s.weight[e] = TimeNs(std::llround(double(s.weight[e]) * double(std::max(0.0f, factors[e]))));
    }
    s.time.assign(n, kNoId);
    s.bestEdge.assign(n, kNoIndex);
    std::vector<std::uint8_t> done(n, 0);
    const bool scaled = factors.size() == s.weight.size();
    if (n == 0)
        return s;
    s.time[graph.source] = graph.nodeTime[graph.source];
    for (const auto u : graph.topoOrder) {
        done[u] = 1;
        if (s.time[u] == kNoId)
            continue; // not reachable from the source
        for (auto k = graph.outBegin[u]; k < graph.outBegin[u + 1]; ++k) {
            const auto e = graph.outEdges[k];
            const auto v = graph.edgeTo[e];
            if (done[v])
                continue; // an edge inside a cycle
            if (scaled && factors[e] == 0.0f && graph.edgeRemovable[e])
                continue; // the wait is gone: the call returns without the GPU op, the rank goes on
            const TimeNs t = s.time[u] + s.weight[e];
            const auto best = s.bestEdge[v];
            if (t > s.time[v]
                || (t == s.time[v] && best != kNoIndex && graph.nodeTime[u] > graph.nodeTime[graph.edgeFrom[best]])) {
                s.time[v] = t;
                s.bestEdge[v] = e;
            }
        }
    }
    if (s.time[graph.sink] != kNoId)
        s.length = s.time[graph.sink] - s.time[graph.source];
    return s;
}

std::vector<std::uint32_t> CriticalPathSolver::pathEdges(const CriticalPathGraph& graph, const PathSolution& solution)
{
    std::vector<std::uint32_t> edges;
    if (solution.time.empty())
        return edges;
    for (auto v = graph.sink;
         v != graph.source && solution.bestEdge[v] != kNoIndex && edges.size() <= graph.edgeCount();
         v = graph.edgeFrom[solution.bestEdge[v]])
        edges.push_back(solution.bestEdge[v]);
    std::reverse(edges.begin(), edges.end());
    return edges;
}

} // namespace ks::analysis
