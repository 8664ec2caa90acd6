#pragma once
// The straggler view of a multi-rank workspace (issue 13): per rank, step time and where its
// GPU time went (compute kernels, collectives, waiting in collectives, idle), and which
// rank made the others wait, per step and overall, with an honest verdict.
#include "core/analysis/collectives.h"

#include <map>
#include <optional>

namespace ks::analysis {

// Totals over the rank's profiled steps (first step start to last step end, extended to the
// end of GPU work launched inside it). Without steps, over the span of the rank's GPU
// activity (the whole trace when it has none).
struct RankSummary {
    std::size_t member = 0;
    int rank = -1;
    std::size_t steps = 0;
    TimeNs stepTimeMean = 0; // mean ProfilerStep#N duration; the window when no steps
    TimeNs windowStart = 0, windowEnd = 0; // member time
    TimeNs kernelTime = 0; // union of non-collective kernels (compute)
    TimeNs collectiveTime = 0; // union of NCCL kernels
    TimeNs collectiveWait = 0; // sum of this rank's waits for the last arrival
    TimeNs idleTime = 0; // window time with no kernel, copy or memset running
    TimeNs waitCaused = 0; // others' wait in the collectives this rank arrived last to
    std::size_t lastArrivals = 0;
};

// Who made the others wait, per step (step numbers of the last rank's ProfilerStep).
struct StepWaitCause {
    long long step = -1;
    int rank = -1; // the rank that caused the most waiting in this step
    TimeNs waitCaused = 0; // by that rank
    TimeNs totalWait = 0; // by all ranks
};

struct StragglerVerdict {
    std::optional<int> rank; // the rank that caused the most waiting; none if nobody waited
    TimeNs waitCaused = 0;
    TimeNs totalWait = 0; // all waiting in matched collectives
    double share = 0.0; // waitCaused / totalWait
    std::size_t stepsLed = 0; // steps where it caused the most waiting
    std::size_t stepsWithWait = 0;
    long long worstStep = -1; // its step with the most waiting caused (one click away)
    TimeNs worstStepWaitCaused = 0;
    bool balanced = false; // the waiting is negligible (< 2% of the ranks' step time)
    bool consistent = false; // it caused >= 75% of the waiting and led >= 75% of the steps
    std::string text; // the verdict in one or two sentences
};

struct RanksReport {
    CollectiveMatching matching;
    std::vector<RankSummary> ranks; // one per workspace member, in member order
    std::vector<StepWaitCause> steps;
    // rank -> step -> the waiting it caused in that step (a job view's heat map); step -1:
    // collectives before the rank's first step
    std::map<int, std::map<long long, TimeNs>> waitCausedByStep;
    StragglerVerdict straggler;
};

// The workspace should be aligned (alignAbsoluteClock() for ranks of one host).
RanksReport analyzeRanks(const Workspace& workspace);

// What the cross-rank part needs of each rank besides its collectives: its own totals (the
// wait fields are filled in here), its steps and its offset on the common axis. Loaded members
// give it (summarizeRank), and so do rank summaries, without the trace.
struct RankTimeline {
    RankSummary summary;
    std::vector<StepSpan> steps; // in time order, the rank's own time
    TimeNs offset = 0;
};
RankSummary summarizeRank(const WorkspaceMember& member, std::size_t index, const std::vector<CollectiveKernel>& nccl);
RanksReport analyzeRanks(std::vector<RankTimeline> ranks, CollectiveMatching matching);

} // namespace ks::analysis
