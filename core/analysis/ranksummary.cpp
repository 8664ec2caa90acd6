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
#include <fstream>
#include <thread>

namespace ks::analysis {

namespace {

constexpr std::size_t kTopRows = 10;
constexpr std::size_t kEvidencePerInsight = 5; // the job view links to the trace for the rest

using Json = nlohmann::json;

// What a job view shows of the rank; only for a member that is its whole trace (a rank of a
// merged file shares its trace's tables with the other ranks).
Json viewOf(const WorkspaceMember& member)
{
    Json view = Json::object();
    if (!member.processes.empty())
        return view;
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

    Json insights = insightsToJson(findInsights(*facts), {facts}, {member.identity.file})["insights"];
    for (auto& insight : insights) {
        auto& evidence = insight["evidence"];
        if (evidence.is_array() && evidence.size() > kEvidencePerInsight)
            evidence.erase(evidence.begin() + kEvidencePerInsight, evidence.end());
    }
    view["insights"] = std::move(insights);

    OperatorTable table = computeOperatorTable(*facts);
    std::erase_if(table.rows, [](const OperatorRow& r) { return r.isDevice; });
    std::sort(table.rows.begin(), table.rows.end(),
              [](const OperatorRow& a, const OperatorRow& b) { return a.selfCpu > b.selfCpu; });
    Json ops = Json::array();
    for (std::size_t i = 0; i < std::min(kTopRows, table.rows.size()); ++i) {
        const auto& r = table.rows[i];
        ops.push_back({{"name", r.name},
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
        top.push_back(
            {{"name", kernels[i].name}, {"calls", kernels[i].calls}, {"total_us", toMicros(kernels[i].total)}});
    view["top_kernels"] = std::move(top);
    return view;
}

template <typename T>
T field(const Json& object, const char* key)
{
    return object.at(key).get<T>();
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
    return s;
}

Json rankSummaryToJson(const RankSummaryFile& s)
{
    const auto& id = s.identity;
    Json steps = Json::array();
    for (const auto& step : s.steps)
        steps.push_back({step.number, step.start, step.end});
    Json collectives = Json::array();
    for (const auto& k : s.collectives)
        collectives.push_back({{"start", k.start},
                               {"end", k.end},
                               {"stream", k.stream},
                               {"name", k.name},
                               {"group", k.processGroup},
                               {"group_ranks", k.groupRanks},
                               {"dtype", k.dtype},
                               {"in_elements", k.inElements},
                               {"out_elements", k.outElements},
                               {"attributed", k.attributed}});
    const auto& t = s.totals;
    return {{"format", kRankSummaryFormat},
            {"version", kRankSummaryVersion},
            {"identity",
             {{"file", id.file},
              {"worker", id.worker},
              {"rank", id.rank},
              {"world_size", id.worldSize},
              {"rank_inferred", id.rankInferred},
              {"backend", id.backend},
              {"run_key", id.runKey}}},
            {"base_time_ns", s.baseTimeNs},
            {"trace_start_ns", s.traceStart},
            {"trace_end_ns", s.traceEnd},
            {"trace_bytes", s.traceBytes},
            {"steps", std::move(steps)},
            {"totals",
             {{"steps", t.steps},
              {"step_time_mean_ns", t.stepTimeMean},
              {"window_start_ns", t.windowStart},
              {"window_end_ns", t.windowEnd},
              {"kernel_time_ns", t.kernelTime},
              {"collective_time_ns", t.collectiveTime},
              {"idle_time_ns", t.idleTime}}},
            {"collectives", std::move(collectives)},
            {"view", s.view}};
}

std::variant<RankSummaryFile, std::string> rankSummaryFromJson(const Json& j, const std::string& where)
{
    if (!j.is_object() || !j.contains("format") || j["format"] != kRankSummaryFormat)
        return where + ": not a Kinetoscope rank summary";
    if (!j.contains("version") || !j["version"].is_number_integer() || j["version"] != kRankSummaryVersion)
        return where + ": rank summary format version "
            + (j.contains("version") ? j["version"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                                     : "?")
            + ", this build reads version " + std::to_string(kRankSummaryVersion) + " (summarize the trace again)";
    RankSummaryFile s;
    try {
        const Json& id = j.at("identity");
        s.identity.file = field<std::string>(id, "file");
        s.identity.worker = field<std::string>(id, "worker");
        s.identity.rank = field<int>(id, "rank");
        s.identity.worldSize = field<int>(id, "world_size");
        s.identity.rankInferred = field<bool>(id, "rank_inferred");
        s.identity.backend = field<std::string>(id, "backend");
        s.identity.runKey = field<std::string>(id, "run_key");
        s.baseTimeNs = field<std::int64_t>(j, "base_time_ns");
        s.traceStart = field<TimeNs>(j, "trace_start_ns");
        s.traceEnd = field<TimeNs>(j, "trace_end_ns");
        s.traceBytes = field<std::uint64_t>(j, "trace_bytes");
        for (const Json& step : j.at("steps"))
            s.steps.push_back({step.at(0).get<long long>(), step.at(1).get<TimeNs>(), step.at(2).get<TimeNs>()});
        const Json& t = j.at("totals");
        s.totals.rank = s.identity.rank;
        s.totals.steps = field<std::size_t>(t, "steps");
        s.totals.stepTimeMean = field<TimeNs>(t, "step_time_mean_ns");
        s.totals.windowStart = field<TimeNs>(t, "window_start_ns");
        s.totals.windowEnd = field<TimeNs>(t, "window_end_ns");
        s.totals.kernelTime = field<TimeNs>(t, "kernel_time_ns");
        s.totals.collectiveTime = field<TimeNs>(t, "collective_time_ns");
        s.totals.idleTime = field<TimeNs>(t, "idle_time_ns");
        for (const Json& c : j.at("collectives")) {
            CollectiveKernel k;
            k.start = field<TimeNs>(c, "start");
            k.end = field<TimeNs>(c, "end");
            k.stream = field<std::int64_t>(c, "stream");
            k.name = field<std::string>(c, "name");
            k.processGroup = field<std::string>(c, "group");
            k.groupRanks = field<std::string>(c, "group_ranks");
            k.dtype = field<std::string>(c, "dtype");
            k.inElements = field<std::int64_t>(c, "in_elements");
            k.outElements = field<std::int64_t>(c, "out_elements");
            k.attributed = field<bool>(c, "attributed");
            s.collectives.push_back(std::move(k));
        }
        if (j.contains("view"))
            s.view = j["view"];
    } catch (const Json::exception& e) {
        return where + ": malformed rank summary: " + e.what();
    }
    return s;
}

std::variant<RankSummaryFile, std::string> readRankSummary(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return path + ": cannot be read";
    Json j = Json::parse(in, nullptr, false);
    if (j.is_discarded())
        return path + ": not valid JSON";
    return rankSummaryFromJson(j, path);
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
    RankSummarySet set;
    std::vector<std::string> paths;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
        if (entry.path().filename().string().ends_with(kRankSummarySuffix))
            paths.push_back(entry.path().string());
    }
    if (ec)
        set.errors.push_back(folder + ": " + ec.message());
    std::sort(paths.begin(), paths.end());
    // Parsing the JSON is the cost (1,024 summaries of 660 collectives are 163 MB): one reader
    // per usable core, each taking the next file.
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
