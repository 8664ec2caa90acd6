#include "core/analysis/ranksummary.h"

#include "core/analysis/insightsjson.h"
#include "core/gpu/gpureport.h"
#include "core/loading/loader.h"
#include "core/stats/kernelstats.h"
#include "core/stats/operatortable.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <filesystem>
#include <thread>

namespace ks::analysis {

namespace {

constexpr std::size_t kTopRows = 5;
constexpr std::size_t kEvidencePerInsight = 3; // the job view links to the trace for the rest
constexpr std::size_t kNameChars = 120; // kernel names run to kilobytes of template arguments
constexpr double kSizeShare = 0.01; // a summary is at most 1 % of its trace's JSON (issue 40)

using Json = nlohmann::json;

std::string shortName(std::string name)
{
    if (name.size() > kNameChars)
        name.resize(kNameChars);
    return name;
}

// What an insight needs in a job view: what, how much, a few events; its advice and explanation
// are the same words for every rank (the full analysis of the rank gives them).
Json compactInsight(const nlohmann::ordered_json& insight)
{
    Json out = Json::object();
    for (const char* key : {"id", "severity", "title", "cause", "time_us", "share", "figures"}) {
        if (insight.contains(key))
            out[key] = insight[key];
    }
    Json evidence = Json::array();
    for (const auto& e : insight.value("evidence", nlohmann::ordered_json::array())) {
        if (evidence.size() == kEvidencePerInsight)
            break;
        evidence.push_back(
            {{"name", e.value("name", "")}, {"ts_us", e.value("ts_us", 0.0)}, {"dur_us", e.value("dur_us", 0.0)}});
    }
    out["evidence"] = std::move(evidence);
    return out;
}

// What a job view shows of the rank (a rank of a merged file has a trace of its own processes).
Json viewOf(const WorkspaceMember& member)
{
    Json view = Json::object();
    const auto facts = facts::sharedTraceFacts(member.trace, member.stepRules);
    const auto report = gpu::makeGpuReport(facts);
    Json breakdown = Json::array();
    for (const auto& row : report->breakdown.steps) {
        Json parts = Json::object();
        for (std::size_t r = 0; r < gpu::kStepRoleCount; ++r)
            parts[std::string(gpu::stepRoleName(static_cast<gpu::StepRole>(r)))] = toMicros(row.parts[r]);
        breakdown.push_back({{"step", row.name},
                             {"start_us", toMicros(row.start)},
                             {"dur_us", toMicros(row.end - row.start)},
                             {"parts_us", std::move(parts)}});
    }
    view["step_breakdown"] = std::move(breakdown);

    Json insights = Json::array();
    // Held by name: a range-for over a member of a temporary reads it after it was freed (C++20).
    const Json found = insightsToJson(findInsights(*facts), {facts}, {});
    for (const auto& insight : found["insights"])
        insights.push_back(compactInsight(insight));
    view["insights"] = std::move(insights);

    OperatorTable table = computeOperatorTable(*facts);
    std::erase_if(table.rows, [](const OperatorRow& r) { return r.isDevice; });
    std::sort(table.rows.begin(), table.rows.end(),
              [](const OperatorRow& a, const OperatorRow& b) { return a.selfCpu > b.selfCpu; });
    Json ops = Json::array();
    for (std::size_t i = 0; i < std::min(kTopRows, table.rows.size()); ++i) {
        const auto& r = table.rows[i];
        ops.push_back({{"name", shortName(r.name)},
                       {"calls", r.calls},
                       {"self_cpu_us", toMicros(r.selfCpu)},
                       {"cpu_total_us", toMicros(r.cpuTotal)},
                       {"self_device_us", toMicros(r.selfDevice)}});
    }
    view["top_ops"] = std::move(ops);

    auto kernels = computeKernelStats(*member.trace);
    std::sort(kernels.begin(), kernels.end(), [](const KernelRow& a, const KernelRow& b) { return a.total > b.total; });
    Json top = Json::array();
    for (std::size_t i = 0; i < std::min(kTopRows, kernels.size()); ++i)
        top.push_back({{"name", shortName(kernels[i].name)},
                       {"calls", kernels[i].calls},
                       {"total_us", toMicros(kernels[i].total)}});
    view["top_kernels"] = std::move(top);
    return view;
}

} // namespace

RankSummaryFile summarizeMember(const WorkspaceMember& member, std::uint64_t traceBytes)
{
    RankSummaryFile s;
    s.identity = member.identity;
    s.baseTimeNs = member.trace->baseTimeNs();
    s.traceStart = member.trace->startTime();
    s.traceEnd = member.trace->endTime();
    s.traceBytes = traceBytes;
    s.steps = member.steps;
    s.collectives = collectiveKernelsOf(member);
    s.totals = summarizeRank(member, 0, s.collectives);
    s.view = viewOf(member);
    // Small traces: the view's parts, least useful first, go while the summary is over budget.
    const double budget = kSizeShare * double(traceBytes);
    for (const char* part : {"top_ops", "top_kernels", "insights", "step_breakdown"}) {
        if (traceBytes == 0
            || double(rankSummaryToJson(s).dump(-1, ' ', false, Json::error_handler_t::replace).size()) <= budget)
            break;
        s.view.erase(part);
    }
    return s;
}

bool isRankSummaryFolder(const std::string& path)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec))
        return false;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
        if (entry.path().filename().string().ends_with(kRankSummarySuffix))
            return true;
    }
    return false;
}

RankSummarySet readRankSummaryFolder(const std::string& folder)
{
    std::vector<std::string> paths;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
        if (entry.path().filename().string().ends_with(kRankSummarySuffix))
            paths.push_back(entry.path().string());
    }
    auto set = readRankSummaries(std::move(paths));
    if (ec)
        set.errors.insert(set.errors.begin(), folder + ": " + ec.message());
    return set;
}

std::vector<int> missingRanks(const std::vector<RankSummaryFile>& ranks)
{
    constexpr int kMostListed = 1 << 20; // an absurd world size lists nothing
    int worldSize = 0;
    std::vector<int> present;
    for (const auto& r : ranks) {
        worldSize = std::max(worldSize, r.identity.worldSize);
        present.push_back(r.identity.rank);
    }
    std::sort(present.begin(), present.end());
    std::vector<int> missing;
    for (int r = 0; r < worldSize && worldSize <= kMostListed; ++r) {
        if (!std::binary_search(present.begin(), present.end(), r))
            missing.push_back(r);
    }
    return missing;
}

RankSummarySet readRankSummaries(std::vector<std::string> paths)
{
    RankSummarySet set;
    std::sort(paths.begin(), paths.end());
    // Parsing is the cost: one reader per usable core, each taking the next file.
    std::vector<std::variant<RankSummaryFile, std::string>> read(paths.size());
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t i = next++; i < paths.size(); i = next++)
            read[i] = readRankSummary(paths[i]);
    };
    std::vector<std::thread> readers(std::min<std::size_t>(usableCores(), paths.size()) - (paths.empty() ? 0 : 1));
    for (auto& reader : readers)
        reader = std::thread(work);
    work();
    for (auto& reader : readers)
        reader.join();
    for (auto& r : read) {
        if (auto* error = std::get_if<std::string>(&r))
            set.errors.push_back(std::move(*error));
        else
            set.ranks.push_back(std::move(std::get<RankSummaryFile>(r)));
    }
    std::stable_sort(set.ranks.begin(), set.ranks.end(), [](const RankSummaryFile& a, const RankSummaryFile& b) {
        const auto key = [](const RankSummaryFile& s) { return s.identity.rank < 0 ? INT_MAX : s.identity.rank; };
        return key(a) < key(b);
    });
    return set;
}

RanksReport analyzeRankSummaries(std::vector<RankSummaryFile> ranks)
{
    std::vector<RankCollectives> collectives;
    std::vector<RankTimeline> timelines;
    const std::int64_t base0 = ranks.empty() ? 0 : ranks.front().baseTimeNs;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        auto& s = ranks[i];
        const TimeNs offset = s.baseTimeNs - base0; // the absolute clock, as alignAbsoluteClock()
        collectives.push_back({s.identity.label(), s.identity.rank, offset, s.traceStart, std::move(s.collectives)});
        RankSummary totals = s.totals;
        totals.member = i;
        totals.rank = s.identity.rank;
        timelines.push_back({totals, s.steps, offset});
    }
    return analyzeRanks(std::move(timelines), matchCollectives(std::move(collectives)));
}

} // namespace ks::analysis
