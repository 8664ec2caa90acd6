// The multi-rank finding: `straggler`, from the ranks analysis of the traces opened together.
#include "core/analysis/insights_detectors.h"
#include "core/analysis/ranks.h"

#include <algorithm>

namespace ks::analysis::detail {

namespace {

// The straggler rank's own kernels of the collectives it arrived last to: where to look.
std::vector<Evidence> stragglerEvidence(const facts::TraceFacts& facts, const RanksReport& report, std::size_t member,
                                        int rank)
{
    std::vector<Evidence> evidence;
    for (const MatchedCollective& c : report.matching.collectives) {
        if (c.lastRank != rank || c.maxWait <= 0)
            continue;
        for (const CollectiveParticipant& p : c.ranks) {
            if (p.member == member && p.slice != kNoSlice)
                evidence.push_back(evidenceFor(facts, p.slice));
        }
    }
    std::sort(evidence.begin(), evidence.end(), [](const Evidence& a, const Evidence& b) { return a.start < b.start; });
    return evidence;
}

} // namespace

std::optional<Insight> detectStraggler(std::span<const std::shared_ptr<const facts::TraceFacts>> traces)
{
    if (traces.size() < 2)
        return std::nullopt;
    Workspace workspace;
    for (const auto& facts : traces) {
        workspace.add(facts->trace, {}, /*splitMergedRanks=*/false);
        workspace.setStepRules(workspace.size() - 1, facts->stepRules); // each trace's own steps
    }
    workspace.sortByRank();
    workspace.alignAbsoluteClock();
    const RanksReport report = analyzeRanks(workspace);
    const StragglerVerdict& verdict = report.straggler;
    if (!verdict.rank || verdict.balanced || verdict.waitCaused <= 0)
        return std::nullopt;

    // Which member and which of `traces` the blamed rank is.
    const auto memberOf = std::find_if(report.ranks.begin(), report.ranks.end(),
                                       [&](const RankSummary& r) { return r.rank == *verdict.rank; });
    if (memberOf == report.ranks.end())
        return std::nullopt;
    const auto& blamedTrace = workspace.members()[memberOf->member].trace;
    const auto traceIt =
        std::find_if(traces.begin(), traces.end(), [&](const auto& facts) { return facts->trace == blamedTrace; });
    const facts::TraceFacts& facts = **traceIt;

    const double steps = double(std::max<std::size_t>(memberOf->steps, 1));
    Insight insight;
    insight.id = "straggler";
    insight.traceIndex = int(traceIt - traces.begin());
    insight.timeUs = double(verdict.waitCaused) / 1000.0 / steps;
    const TimeNs stepMean = memberOf->stepTimeMean;
    insight.share = stepMean > 0 ? insight.timeUs * 1000.0 / double(stepMean) : 0.0;
    insight.severity = severityForShare(insight.share);
    insight.title = "Rank " + std::to_string(*verdict.rank) + " makes the other ranks wait " + formatUs(insight.timeUs)
        + " per step in collectives" + (verdict.consistent ? "" : " (not in every step)");
    insight.evidence = stragglerEvidence(facts, report, memberOf->member, *verdict.rank);
    insight.explanation = verdict.text
        + " A collective finishes only when the last rank arrives: the others sit in their "
          "NCCL kernels until then, so the slowest rank sets the step time of all.";
    insight.advice = "Look at what this rank does before the collectives it arrives last to (the evidence): "
                     "uneven data or work per rank, a slow input pipeline or host work on that rank, or a "
                     "slower GPU. Balance the work, or overlap the host work with the GPU.";
    insight.figures = {{"rank", double(*verdict.rank)},
                       {"wait_caused_share", verdict.share},
                       {"consistent", verdict.consistent ? 1.0 : 0.0},
                       {"worst_step", double(verdict.worstStep)}};
    return insight;
}

} // namespace ks::analysis::detail
