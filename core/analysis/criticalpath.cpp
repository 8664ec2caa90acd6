#include "core/analysis/criticalpath.h"

#include "core/analysis/diff.h"

#include <charconv>
#include <unordered_map>

namespace ks::analysis {

namespace {

// "12" -> 12; a name that is not a number (another step rule's label) gets the index.
long long stepNumber(const std::string& name, std::size_t index)
{
    long long n = -1;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
    return ec == std::errc() && end == name.data() + name.size() ? n : static_cast<long long>(index);
}

} // namespace

CriticalPathAnalysis::CriticalPathAnalysis(CriticalPathGraphBuilder builder)
    : m_builder(std::move(builder))
{
}

CriticalPath CriticalPathAnalysis::describe(const CriticalPathGraph& graph, const PathSolution& solution) const
{
    CriticalPath path;
    path.length = solution.length;
    std::unordered_map<std::uint32_t, const CriticalPathGraph::CollectiveJoin*> joinOf; // by cross-rank edge
    for (const auto& join : graph.collectiveJoins)
        joinOf.emplace(join.edge, &join);
    for (const auto e : CriticalPathSolver::pathEdges(graph, solution)) {
        const auto join = joinOf.find(e);
        if (join != joinOf.end()) {
            const TimeNs waitStart = solution.time[join->second->waitingStart],
                         arrival = solution.time[graph.edgeTo[e]];
            if (waitStart < arrival)
                addCollectiveWait(path, graph.items[graph.edgeItem[e]], graph.items[join->second->lastItem], waitStart,
                                  arrival);
            continue;
        }
        const TimeNs w = solution.weight[e];
        if (w <= 0)
            continue;
        const PathKind kind = graph.edgeKind[e];
        const std::uint32_t item = graph.edgeItem[e];
        const PathItem pathItem = item == kNoIndex ? PathItem{} : graph.items[item];
        if (!path.segments.empty()) {
            PathSegment& last = path.segments.back();
            if (last.kind == kind && last.item.member == pathItem.member && last.item.slice == pathItem.slice) {
                last.duration += w; // one op's own time split by nothing on the path
                continue;
            }
        }
        PathSegment seg = segmentOf(kind, pathItem);
        seg.start = solution.time[graph.edgeFrom[e]];
        seg.duration = w;
        if (kind == PathKind::Launch && item != kNoIndex && graph.itemCalledBefore[item])
            seg.name += " (called before the window)";
        path.segments.push_back(std::move(seg));
    }
    for (const auto& seg : path.segments)
        path.breakdown[std::size_t(seg.kind)] += seg.duration;
    return path;
}

PathSegment CriticalPathAnalysis::segmentOf(PathKind kind, const PathItem& item) const
{
    PathSegment seg;
    seg.kind = kind;
    seg.item = item;
    if (item.slice == kNoSlice)
        return seg;
    const auto& members = m_builder.members();
    const PathMember& member = members[item.member];
    const Trace& trace = *member.facts->trace;
    seg.name = trace.str(trace.slices().name[item.slice]);
    if (kind == PathKind::Other) // the thread's idle or untraced time before it
        seg.name = "before " + seg.name;
    seg.track = trace.trackDisplayName(trace.trackOf(item.slice));
    if (members.size() > 1 && !member.label.empty())
        seg.track = member.label + " / " + seg.track;
    if (kind == PathKind::Kernel)
        seg.family = kernelFamily(seg.name);
    return seg;
}

// The path reached the waiting kernel through the last rank to arrive: from the kernel's
// start to that rank's arrival the waiting rank waited in it. The path's segments over that
// time (the other rank's work) give way to the wait; those before it stay.
void CriticalPathAnalysis::addCollectiveWait(CriticalPath& path, const PathItem& waiting, const PathItem& last,
                                             TimeNs waitStart, TimeNs arrival) const
{
    auto& segments = path.segments;
    while (!segments.empty() && segments.back().start >= waitStart)
        segments.pop_back();
    if (!segments.empty() && segments.back().start + segments.back().duration > waitStart)
        segments.back().duration = waitStart - segments.back().start;
    PathSegment seg = segmentOf(PathKind::CollectiveWait, waiting);
    seg.start = waitStart;
    seg.duration = arrival - waitStart;
    seg.waitedFor = last;
    segments.push_back(std::move(seg));
}

StepCriticalPath CriticalPathAnalysis::analyzeRange(TimeNs start, TimeNs end, const std::vector<WhatIf>& whatIfs,
                                                    std::uint32_t primary) const
{
    StepCriticalPath result;
    result.start = start;
    result.end = std::max(start, end);
    const CriticalPathGraph graph = m_builder.build(start, end, primary);
    result.nodes = graph.nodeCount();
    result.edges = graph.edgeCount();
    result.warnings = graph.droppedEdges + graph.cycleNodes;
    result.path = describe(graph, CriticalPathSolver::solve(graph));
    if (!whatIfs.empty()) {
        const WhatIfScaler scaler(whatIfs);
        const auto factors = scaler.factors(graph, m_builder.members());
        result.whatIf = describe(graph, CriticalPathSolver::solve(graph, factors));
    }
    return result;
}

std::vector<StepCriticalPath> CriticalPathAnalysis::analyzeSteps(const std::vector<WhatIf>& whatIfs,
                                                                 std::uint32_t primary) const
{
    std::vector<StepCriticalPath> steps;
    const auto& members = m_builder.members();
    if (primary >= members.size())
        return steps;
    const PathMember& member = members[primary];
    const facts::PluginWindows& windows = member.facts->windows;
    const Trace& trace = *member.facts->trace;
    if (windows.steps.empty()) {
        auto whole = analyzeRange(trace.startTime() + member.offset, trace.endTime() + member.offset, whatIfs, primary);
        whole.step = 0;
        whole.label = "whole trace";
        steps.push_back(std::move(whole));
        return steps;
    }
    for (std::size_t i = 0; i < windows.steps.size(); ++i) {
        const auto& w = windows.steps[i];
        auto step = analyzeRange(w.start + member.offset, w.end + member.offset, whatIfs, primary);
        step.step = stepNumber(w.name, i);
        step.label = w.name;
        steps.push_back(std::move(step));
    }
    return steps;
}

CriticalPathAnalysis criticalPathOf(std::shared_ptr<const facts::TraceFacts> facts)
{
    std::vector<PathMember> members(1);
    members[0].facts = std::move(facts);
    return CriticalPathAnalysis(CriticalPathGraphBuilder(std::move(members)));
}

CriticalPathAnalysis criticalPathOf(const Workspace& workspace, const CollectiveMatching* matching)
{
    std::vector<PathMember> members;
    for (const WorkspaceMember& m : workspace.members())
        members.push_back({facts::sharedTraceFacts(m.trace, m.stepRules), m.offset, m.identity.label()});
    return CriticalPathAnalysis(CriticalPathGraphBuilder(std::move(members), matching));
}

} // namespace ks::analysis
