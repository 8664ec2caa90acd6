#include "core/analysis/jobview.h"

#include "core/model/tracebuilder.h"

#include <algorithm>
#include <set>

namespace ks::analysis {

namespace {

// One process per rank ("Rank 3 · summary"), one track of its collectives named by kind
// ("allreduce"), on ranks[0]'s clock (the absolute clock, as the analysis matched them).
std::shared_ptr<const Trace> collectiveRowsOf(const std::vector<RankSummaryFile>& ranks,
                                              const CollectiveMatching& matching)
{
    TraceBuilder builder;
    builder.addMetadata(std::string(kSummaryRowsMetadata), "true");
    const StringId category = builder.strings().intern("collective");
    const std::int64_t base0 = ranks.empty() ? 0 : ranks.front().baseTimeNs;
    builder.setBaseTimeNs(base0);
    for (std::size_t i = 0; i < ranks.size() && i < matching.kernels.size(); ++i) {
        const JsonId pid = JsonId::fromNumber(static_cast<std::int64_t>(i));
        const JsonId tid = JsonId::fromNumber(0);
        builder.setProcessName(pid, ranks[i].identity.label() + " · summary");
        builder.setProcessSortIndex(pid, static_cast<std::int64_t>(i));
        builder.setThreadName(pid, tid, "collectives");
        const TimeNs offset = ranks[i].baseTimeNs - base0;
        for (const CollectiveKernel& k : matching.kernels[i]) {
            SliceEvent e;
            e.pid = pid;
            e.tid = tid;
            e.start = k.start + offset;
            e.duration = std::max<TimeNs>(k.end - k.start, 0);
            e.name = builder.strings().intern(k.name.empty() ? "collective" : k.name);
            e.category = category;
            builder.addSlice(e);
        }
    }
    return std::make_shared<const Trace>(builder.finish());
}

} // namespace

bool isSummaryRows(const Trace& trace) { return trace.metadataValue(kSummaryRowsMetadata) != nullptr; }

WaitHeatMap waitHeatMap(const RanksReport& report, const std::vector<int>& ranks)
{
    WaitHeatMap map;
    map.ranks = ranks;
    std::sort(map.ranks.begin(), map.ranks.end());
    std::set<long long> steps;
    for (const auto& [rank, bySteps] : report.waitCausedByStep) {
        for (const auto& [step, caused] : bySteps)
            steps.insert(step);
    }
    map.steps.assign(steps.begin(), steps.end());
    map.cells.assign(map.ranks.size() * map.steps.size(), 0);
    for (std::size_t row = 0; row < map.ranks.size(); ++row) {
        const auto it = report.waitCausedByStep.find(map.ranks[row]);
        if (it == report.waitCausedByStep.end())
            continue;
        for (const auto& [step, caused] : it->second) {
            const auto column = std::lower_bound(map.steps.begin(), map.steps.end(), step) - map.steps.begin();
            map.cells[row * map.steps.size() + static_cast<std::size_t>(column)] = caused;
            map.max = std::max(map.max, caused);
        }
    }
    return map;
}

const RankSummaryFile* JobView::rank(int number) const
{
    for (const auto& r : ranks) {
        if (r.identity.rank == number)
            return &r;
    }
    return nullptr;
}

std::vector<int> JobView::suggestedRanks(std::size_t waiters) const
{
    std::vector<int> out;
    auto add = [&](int r) {
        if (r >= 0 && rank(r) && std::find(out.begin(), out.end(), r) == out.end())
            out.push_back(r);
    };
    if (report.straggler.rank)
        add(*report.straggler.rank);
    std::vector<const RankSummary*> byWait;
    for (const auto& r : report.ranks)
        byWait.push_back(&r);
    std::stable_sort(byWait.begin(), byWait.end(),
                     [](const RankSummary* a, const RankSummary* b) { return a->collectiveWait > b->collectiveWait; });
    for (std::size_t i = 0; i < std::min(waiters, byWait.size()); ++i) {
        if (byWait[i]->collectiveWait > 0)
            add(byWait[i]->rank);
    }
    add(0);
    return out;
}

std::shared_ptr<const Trace> JobView::collectiveRowsFor(const std::vector<std::uint32_t>& members) const
{
    // Rows by pid (= index into ranks): a rank without collectives has no process.
    std::vector<std::uint32_t> processes;
    for (std::uint32_t p = 0; p < collectiveRows->processes().size(); ++p) {
        const std::int64_t member = collectiveRows->processes()[p].pid.number;
        if (std::find(members.begin(), members.end(), member) != members.end())
            processes.push_back(p);
    }
    if (processes.size() == collectiveRows->processes().size())
        return collectiveRows;
    return TraceBuilder::subsetOf(*collectiveRows, processes);
}

JobView openJobView(const std::string& folder)
{
    JobView view;
    view.folder = folder;
    auto set = readRankSummaryFolder(folder);
    view.errors = std::move(set.errors);
    view.ranks = std::move(set.ranks);
    std::vector<RankSummaryFile> forAnalysis;
    forAnalysis.reserve(view.ranks.size());
    for (auto& r : view.ranks) {
        RankSummaryFile moved;
        moved.identity = r.identity;
        moved.baseTimeNs = r.baseTimeNs;
        moved.traceStart = r.traceStart;
        moved.steps = r.steps;
        moved.totals = r.totals;
        moved.collectives = std::move(r.collectives); // kept once, in the report's matching
        r.collectives.clear();
        forAnalysis.push_back(std::move(moved));
    }
    view.report = analyzeRankSummaries(std::move(forAnalysis));
    std::vector<int> numbers;
    for (const auto& r : view.ranks)
        numbers.push_back(r.identity.rank);
    view.heatMap = waitHeatMap(view.report, numbers);
    view.collectiveRows = collectiveRowsOf(view.ranks, view.report.matching);
    return view;
}

} // namespace ks::analysis
