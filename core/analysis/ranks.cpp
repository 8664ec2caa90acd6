#include "core/analysis/ranks.h"

#include "core/gpu/intervalset.h"
#include "core/model/saturating.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace ks::analysis {

namespace {

constexpr double kBalancedWaitFraction = 0.02; // of a rank's step time
constexpr double kConsistentShare = 0.75;

} // namespace

RankSummary summarizeRank(const WorkspaceMember& member, std::size_t index, const std::vector<CollectiveKernel>& nccl)
{
    const Trace& trace = *member.trace;
    RankSummary r;
    r.member = index;
    r.rank = member.identity.rank;
    r.steps = member.steps.size();
    // Without steps (a collected trace whose program never called the profiler's step API) the
    // window is the rank's GPU activity, not the process lifetime: a long start-up would make
    // a busy rank read as idle.
    const bool hasSteps = !member.steps.empty();
    const TimeNs hostStart = hasSteps ? member.steps.front().start : std::numeric_limits<TimeNs>::min();
    const TimeNs hostEnd = hasSteps ? member.steps.back().end : std::numeric_limits<TimeNs>::max();
    TimeNs gpuStart = std::numeric_limits<TimeNs>::max(), gpuEnd = std::numeric_limits<TimeNs>::min();

    std::vector<SliceId> ncclSlices;
    ncclSlices.reserve(nccl.size());
    for (const auto& k : nccl)
        ncclSlices.push_back(k.slice);
    std::sort(ncclSlices.begin(), ncclSlices.end());
    std::vector<gpu::IntervalSet::Interval> compute, collective, busy;
    for (const Track& track : trace.tracks()) {
        if (track.kind != TrackKind::GpuStream)
            continue;
        for (SliceId s = track.sliceBegin; s < track.sliceEnd; ++s) {
            const SliceClass c = trace.classOf(s);
            if (c != SliceClass::Kernel && c != SliceClass::Memcpy && c != SliceClass::Memset)
                continue;
            const TimeNs start = trace.slices().start[s], end = trace.slices().end(s);
            if (start < hostStart || start >= hostEnd)
                continue;
            gpuStart = std::min(gpuStart, start);
            gpuEnd = std::max(gpuEnd, end);
            busy.emplace_back(start, end);
            if (c == SliceClass::Kernel)
                (std::binary_search(ncclSlices.begin(), ncclSlices.end(), s) ? collective : compute)
                    .emplace_back(start, end);
        }
    }
    const bool hasGpu = gpuStart <= gpuEnd;
    if (hasSteps) {
        r.windowStart = hostStart;
        r.windowEnd = hasGpu ? std::max(hostEnd, gpuEnd) : hostEnd;
    } else {
        r.windowStart = hasGpu ? gpuStart : trace.startTime();
        r.windowEnd = hasGpu ? gpuEnd : trace.endTime();
    }
    r.kernelTime = gpu::IntervalSet::unionOf(std::move(compute)).measure();
    r.collectiveTime = gpu::IntervalSet::unionOf(std::move(collective)).measure();
    r.idleTime = (r.windowEnd - r.windowStart)
        - gpu::IntervalSet::unionOf(std::move(busy)).measureWithin(r.windowStart, r.windowEnd);
    if (hasSteps) {
        TimeNs sum = 0;
        for (const auto& s : member.steps)
            sum = saturatingAdd(sum, s.end - s.start);
        r.stepTimeMean = sum / static_cast<TimeNs>(member.steps.size());
    } else {
        r.stepTimeMean = r.windowEnd - r.windowStart;
    }
    return r;
}

namespace {

// The step of a rank running at its own time t (the last one begun), -1 if none.
long long stepAt(const std::vector<StepSpan>& steps, TimeNs t)
{
    long long step = -1;
    for (const auto& s : steps) {
        if (s.start <= t)
            step = s.number;
    }
    return step;
}

std::string rankName(int rank) { return rank >= 0 ? "rank " + std::to_string(rank) : "a rank of unknown number"; }

StragglerVerdict judge(const std::vector<RankSummary>& ranks, const std::vector<StepWaitCause>& steps,
                       const std::map<int, std::map<long long, TimeNs>>& causedPerStep)
{
    StragglerVerdict v;
    const RankSummary* top = nullptr;
    for (const auto& r : ranks) {
        v.totalWait = saturatingAdd(v.totalWait, r.waitCaused);
        if (r.waitCaused > 0 && (!top || r.waitCaused > top->waitCaused))
            top = &r;
    }
    if (!top) {
        v.balanced = true;
        v.text = "no rank waited for another in a matched collective: no straggler";
        return v;
    }
    double worstFraction = 0.0;
    for (const auto& r : ranks) {
        const double stepTotal =
            static_cast<double>(r.stepTimeMean) * static_cast<double>(std::max<std::size_t>(r.steps, 1));
        if (stepTotal > 0)
            worstFraction = std::max(worstFraction, static_cast<double>(r.collectiveWait) / stepTotal);
    }
    v.waitCaused = top->waitCaused;
    v.share = static_cast<double>(top->waitCaused) / static_cast<double>(v.totalWait);
    std::vector<long long> ledBy, ledByOthers;
    for (const auto& s : steps) {
        if (s.totalWait <= 0)
            continue;
        ++v.stepsWithWait;
        (s.rank == top->rank ? ledBy : ledByOthers).push_back(s.step);
    }
    v.stepsLed = ledBy.size();
    if (auto it = causedPerStep.find(top->rank); it != causedPerStep.end()) {
        for (const auto& [step, caused] : it->second) {
            if (caused > v.worstStepWaitCaused) {
                v.worstStepWaitCaused = caused;
                v.worstStep = step;
            }
        }
    }
    v.balanced = worstFraction < kBalancedWaitFraction;
    v.consistent = !v.balanced && v.share >= kConsistentShare
        && (v.stepsWithWait == 0 || static_cast<double>(v.stepsLed) >= kConsistentShare * v.stepsWithWait);
    auto list = [](const std::vector<long long>& steps) {
        std::string out;
        for (long long s : steps)
            out += (out.empty() ? "" : ", ") + std::to_string(s);
        return out;
    };
    const std::string caused = rankName(top->rank) + " caused " + std::to_string(std::lround(v.share * 100))
        + "% of the waiting (" + formatDuration(v.waitCaused) + " of " + formatDuration(v.totalWait)
        + "), arriving last in " + std::to_string(top->lastArrivals) + " collectives";
    if (v.balanced) {
        v.text = "balanced: no rank waits more than 2% of its step time in collectives (" + caused + ")";
        v.rank.reset();
        return v;
    }
    v.rank = top->rank;
    if (v.consistent)
        v.text = rankName(top->rank) + " is the straggler: " + caused.substr(rankName(top->rank).size() + 1)
            + (v.worstStep >= 0 ? "; most in step " + std::to_string(v.worstStep) : std::string());
    else
        v.text = "no consistent straggler: " + caused
            + (ledBy.empty() ? std::string() : ", leading step(s) " + list(ledBy))
            + (ledByOthers.empty() ? std::string()
                                   : ", but other ranks caused the most waiting in step(s) " + list(ledByOthers))
            + "; the imbalance moves between ranks";
    return v;
}

} // namespace

RanksReport analyzeRanks(const Workspace& workspace)
{
    CollectiveMatching matching = matchCollectives(workspace);
    std::vector<RankTimeline> ranks;
    const auto& members = workspace.members();
    for (std::size_t m = 0; m < members.size(); ++m)
        ranks.push_back({summarizeRank(members[m], m, matching.kernels[m]), members[m].steps, members[m].offset});
    return analyzeRanks(std::move(ranks), std::move(matching));
}

RanksReport analyzeRanks(std::vector<RankTimeline> members, CollectiveMatching matching)
{
    RanksReport report;
    report.matching = std::move(matching);
    for (const auto& m : members)
        report.ranks.push_back(m.summary);

    std::map<int, std::map<long long, TimeNs>> causedPerStep; // rank -> step -> wait caused
    std::map<long long, std::map<int, TimeNs>> perStep; // step -> rank -> wait caused
    for (const auto& c : report.matching.collectives) {
        TimeNs waits = 0;
        std::size_t lastMember = 0;
        for (const auto& p : c.ranks) {
            TimeNs& rankWait = report.ranks[p.member].collectiveWait;
            rankWait = saturatingAdd(rankWait, p.wait);
            waits = saturatingAdd(waits, p.wait);
            if (p.rank == c.lastRank && p.start == c.lastStart)
                lastMember = p.member;
        }
        TimeNs& caused = report.ranks[lastMember].waitCaused;
        caused = saturatingAdd(caused, waits);
        ++report.ranks[lastMember].lastArrivals;
        const long long step = stepAt(members[lastMember].steps, c.lastStart - members[lastMember].offset);
        TimeNs& causedInStep = causedPerStep[c.lastRank][step];
        causedInStep = saturatingAdd(causedInStep, waits);
        TimeNs& byRankInStep = perStep[step][c.lastRank];
        byRankInStep = saturatingAdd(byRankInStep, waits);
    }
    for (const auto& [step, byRank] : perStep) {
        StepWaitCause s;
        s.step = step;
        for (const auto& [rank, caused] : byRank) {
            s.totalWait = saturatingAdd(s.totalWait, caused);
            if (s.rank < 0 || caused > s.waitCaused) {
                s.rank = rank;
                s.waitCaused = caused;
            }
        }
        report.steps.push_back(s);
    }
    report.straggler = judge(report.ranks, report.steps, causedPerStep);
    report.waitCausedByStep = std::move(causedPerStep);
    return report;
}

} // namespace ks::analysis
