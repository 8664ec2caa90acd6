#include "core/analysis/criticalpathgraph.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace ks::analysis {

namespace {
constexpr std::array<std::string_view, kPathKindCount> kKindNames = {
    "cpu_op", "launch", "kernel", "memcpy", "memset", "sync_wait", "gpu_idle", "collective_wait", "other"};
}

std::string_view pathKindName(PathKind kind) { return kKindNames[std::size_t(kind)]; }

bool pathKindFromName(std::string_view name, PathKind& kind)
{
    for (std::size_t i = 0; i < kKindNames.size(); ++i) {
        if (kKindNames[i] == name) {
            kind = PathKind(i);
            return true;
        }
    }
    return false;
}

std::uint32_t CriticalPathGraph::addEdge(std::uint32_t from, std::uint32_t to, TimeNs weight, PathKind kind,
                                         std::uint32_t item, bool scalable, bool removable)
{
    if (from == to || nodeTime[from] > nodeTime[to]) {
        ++droppedEdges;
        return kNoIndex;
    }
    edgeFrom.push_back(from);
    edgeTo.push_back(to);
    edgeWeight.push_back(std::clamp<TimeNs>(weight, 0, nodeTime[to] - nodeTime[from]));
    edgeKind.push_back(kind);
    edgeItem.push_back(item);
    edgeScalable.push_back(scalable ? 1 : 0);
    edgeRemovable.push_back(removable ? 1 : 0);
    return std::uint32_t(edgeFrom.size() - 1);
}

void CriticalPathGraph::finish()
{
    const std::size_t n = nodeCount();
    // Tight in-edges: a node whose every dependency leaves slack gets an explicit gap from the
    // latest of them, so that solving reproduces the measured times.
    std::vector<TimeNs> reach(n, kNoId);
    std::vector<std::uint32_t> latestPred(n, kNoIndex);
    const std::size_t measuredEdges = edgeCount();
    for (std::size_t e = 0; e < measuredEdges; ++e) {
        const auto u = edgeFrom[e], v = edgeTo[e];
        reach[v] = std::max(reach[v], nodeTime[u] + edgeWeight[e]);
        if (latestPred[v] == kNoIndex || nodeTime[u] > nodeTime[latestPred[v]])
            latestPred[v] = u;
    }
    for (std::uint32_t v = 0; v < n; ++v) {
        if (v == source || reach[v] == nodeTime[v])
            continue;
        const std::uint32_t from = latestPred[v] != kNoIndex ? latestPred[v] : source;
        ++unexplainedNodes;
        addEdge(from, v, nodeTime[v] - nodeTime[from], PathKind::Other, kNoIndex);
    }

    indexOutEdges();
    std::vector<std::uint32_t> inDegree(n, 0);
    for (auto v : edgeTo)
        ++inDegree[v];

    topoOrder.clear();
    topoOrder.reserve(n);
    for (std::uint32_t v = 0; v < n; ++v)
        if (inDegree[v] == 0)
            topoOrder.push_back(v);
    for (std::size_t i = 0; i < topoOrder.size(); ++i) {
        const auto u = topoOrder[i];
        for (auto k = outBegin[u]; k < outBegin[u + 1]; ++k)
            if (--inDegree[edgeTo[outEdges[k]]] == 0)
                topoOrder.push_back(edgeTo[outEdges[k]]);
    }
    if (topoOrder.size() < n) {
        // Only equal-time zero-weight edges can form a cycle (edges never point back in time):
        // the rest follow in time order, and the solver ignores edges into visited nodes.
        std::vector<std::uint32_t> rest;
        for (std::uint32_t v = 0; v < n; ++v)
            if (inDegree[v] != 0)
                rest.push_back(v);
        cycleNodes = rest.size();
        std::stable_sort(rest.begin(), rest.end(), [&](auto a, auto b) { return nodeTime[a] < nodeTime[b]; });
        topoOrder.insert(topoOrder.end(), rest.begin(), rest.end());
        explainAfterCycles();
    }
}

void CriticalPathGraph::indexOutEdges()
{
    outBegin.assign(nodeCount() + 1, 0);
    for (auto u : edgeFrom)
        ++outBegin[u + 1];
    std::partial_sum(outBegin.begin(), outBegin.end(), outBegin.begin());
    outEdges.resize(edgeCount());
    std::vector<std::uint32_t> fill(outBegin.begin(), outBegin.end() - 1);
    for (std::uint32_t e = 0; e < edgeCount(); ++e)
        outEdges[fill[edgeFrom[e]]++] = e;
}

// The solver follows no edge into a node already placed, so a node whose tight edge came
// from later in the order (from inside its cycle) would be solved too early: give each such
// node a gap edge from its latest predecessor placed before it (or the source).
void CriticalPathGraph::explainAfterCycles()
{
    const std::size_t n = nodeCount();
    std::vector<std::uint32_t> position(n);
    for (std::uint32_t i = 0; i < n; ++i)
        position[topoOrder[i]] = i;
    std::vector<std::uint8_t> tight(n, 0);
    std::vector<std::uint32_t> latestBefore(n, kNoIndex);
    for (std::size_t e = 0; e < edgeCount(); ++e) {
        const auto u = edgeFrom[e], v = edgeTo[e];
        if (position[u] >= position[v])
            continue;
        if (nodeTime[u] + edgeWeight[e] == nodeTime[v])
            tight[v] = 1;
        if (latestBefore[v] == kNoIndex || nodeTime[u] > nodeTime[latestBefore[v]])
            latestBefore[v] = u;
    }
    const std::size_t before = edgeCount();
    for (std::uint32_t v = 0; v < n; ++v) {
        if (v == source || tight[v])
            continue;
        const std::uint32_t from = latestBefore[v] != kNoIndex ? latestBefore[v] : source;
        ++unexplainedNodes;
        addEdge(from, v, nodeTime[v] - nodeTime[from], PathKind::Other, kNoIndex);
    }
    if (edgeCount() != before)
        indexOutEdges();
}

} // namespace ks::analysis
