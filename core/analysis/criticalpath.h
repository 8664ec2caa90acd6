#pragma once
// The critical path of a step (issue 36): the longest chain of dependencies through the
// step's CPU work, launches, GPU work and waits, split into segments by what they are spent
// on, with what-ifs re-solved on the same graph. See docs/critical-path.md.
#include "core/analysis/criticalpathbuilder.h"
#include "core/analysis/criticalpathsolver.h"
#include "core/analysis/criticalpathwhatif.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace ks::analysis {

struct PathSegment {
    PathKind kind = PathKind::Other;
    std::string name; // the op, call or GPU op it belongs to ("" for a step's tail)
    std::string family; // kernels: kernelFamily(name)
    TimeNs start = 0; // on the common axis; the solved (what-if) time for what-if paths
    TimeNs duration = 0;
    std::string track; // "thread 605", "stream 7", prefixed by the member's label with several
    PathItem item; // slice == kNoSlice when none
};

struct CriticalPath {
    TimeNs length = 0;
    std::array<TimeNs, kPathKindCount> breakdown{}; // by PathKind; adds up to length
    std::vector<PathSegment> segments; // in time order; add up to length
};

struct StepCriticalPath {
    long long step = -1; // the step's number (ProfilerStep#N), else its index
    std::string label; // the step window's name
    TimeNs start = 0, end = 0;
    CriticalPath path;
    std::optional<CriticalPath> whatIf; // with what-ifs: the re-solved path
    std::size_t warnings = 0; // edges against time and nodes in cycles (bad flows, skew)
    std::size_t nodes = 0, edges = 0;
};

class CriticalPathAnalysis {
public:
    explicit CriticalPathAnalysis(CriticalPathGraphBuilder builder);

    // The path of [start, end] (member `primary`'s time shifted by its offset).
    StepCriticalPath analyzeRange(TimeNs start, TimeNs end, const std::vector<WhatIf>& whatIfs = {},
                                  std::uint32_t primary = 0) const;
    // One entry per step of the primary member (facts.windows.steps), or the whole trace
    // when it has none.
    std::vector<StepCriticalPath> analyzeSteps(const std::vector<WhatIf>& whatIfs = {},
                                               std::uint32_t primary = 0) const;

    // Segments and breakdown of a solved graph.
    CriticalPath describe(const CriticalPathGraph& graph, const PathSolution& solution) const;

    const CriticalPathGraphBuilder& builder() const { return m_builder; }

private:
    PathSegment segmentOf(PathKind kind, const PathItem& item) const; // named after its item
    void addCollectiveWait(CriticalPath& path, const PathItem& waiting, TimeNs waitStart, TimeNs arrival) const;

    CriticalPathGraphBuilder m_builder;
};

// The analysis of one trace.
CriticalPathAnalysis criticalPathOf(std::shared_ptr<const facts::TraceFacts> facts);
// The analysis of a workspace's ranks on its axis (align it first); `matching` (may be null,
// must outlive the analysis) joins their collectives.
CriticalPathAnalysis criticalPathOf(const Workspace& workspace, const CollectiveMatching* matching);

} // namespace ks::analysis
