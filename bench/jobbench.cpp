// A generated job for the rank summaries (issue 40): N ranks tiled from the real DDP rank
// traces with clock jitter, a planted straggler and a planted slow link (bench/tiler/rankvariant.h).
//   bench_job generate DIR N [COPIES]   N rank traces (COPIES copies of the source each, default 1)
//   bench_job summaries DIR N COPIES    N rank summaries of COPIES copies each, tiled from the
//                                       summaries of the two sources (a 1,024 × 110-copy job is
//                                       200 GB of trace, its summaries 170 MB); checked first
//                                       against summarizing a tiled trace
//   bench_job analyze DIR               the cross-rank analysis of DIR's summaries: read and match
//                                       times, peak RSS, the verdict against the planted straggler
// bench/job-scale.sh runs them with `summarize` under mpirun and `ranks OUTDIR`.
#include "bench/measure.h"
#include "bench/tiler/tracetiler.h"
#include "core/analysis/ranksummary.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

namespace {

using namespace ks;
using namespace ks::bench;

std::string sourcePath(int rank)
{
    return std::string(KS_BENCH_DATA) + "/ddp_rank" + std::to_string(rank % 2) + ".pt.trace.json.gz";
}

// "rank0007": the stem of the rank's trace and of its summary (as `summarize` names it).
std::string rankStem(int rank)
{
    char name[16];
    std::snprintf(name, sizeof name, "rank%04d", rank);
    return name;
}

std::string rankFile(const std::string& dir, int rank)
{
    return (std::filesystem::path(dir) / (rankStem(rank) + ".pt.trace.json")).string();
}

int generate(const std::string& dir, int ranks, std::uint64_t copies)
{
    std::filesystem::create_directories(dir);
    const auto sources = tilersInStep({sourcePath(0), sourcePath(1)});
    const PlantedJob job = plantedJob(ranks);
    const auto start = Clock::now();
    std::uint64_t bytes = 0;
    for (int r = 0; r < ranks; ++r) {
        const TileResult result =
            sources[std::size_t(r % 2)].write(rankFile(dir, r), 0, copies, job.variants[std::size_t(r)]);
        if (!result.error.empty())
            return std::fprintf(stderr, "bench_job: %s\n", result.error.c_str()), 1;
        bytes += result.bytes;
    }
    std::printf("generated %d ranks × %llu copies in %s: %.0f MB (%.1f s); planted straggler rank %d, slow link "
                "rank %d\n",
                ranks, static_cast<unsigned long long>(copies), dir.c_str(), double(bytes) / 1e6, secondsSince(start),
                job.straggler, job.slowLink);
    return 0;
}

analysis::RankSummaryFile summarizeFile(const std::string& path)
{
    const LoadResult loaded = loadTraceFile(path);
    analysis::Workspace ws;
    ws.add(loaded.trace, path);
    return analysis::summarizeMember(ws.members().front(), std::filesystem::file_size(path));
}

// The summary of `copies` copies of `source` placed by `variant`, without the trace: the
// tiler's shifts applied to the one-copy summary. The totals are scaled (the window exactly,
// the times by the number of copies); the view stays the one-copy view.
analysis::RankSummaryFile tileSummary(const analysis::RankSummaryFile& source, const TraceTiler& tiler,
                                      std::uint64_t copies, const RankVariant& variant)
{
    analysis::RankSummaryFile s = source;
    s.collectives.clear();
    s.steps.clear();
    std::map<std::int64_t, std::vector<std::size_t>> byStream;
    for (std::size_t i = 0; i < source.collectives.size(); ++i)
        byStream[source.collectives[i].stream].push_back(i);
    std::vector<TimeNs> nextStart(source.collectives.size());
    for (const auto& [stream, kernels] : byStream) {
        for (std::size_t i = 0; i < kernels.size(); ++i)
            nextStart[kernels[i]] = i + 1 < kernels.size() ? source.collectives[kernels[i + 1]].start
                                                           : source.collectives[kernels.front()].start + tiler.period();
    }
    const auto copyCount = static_cast<std::int64_t>(copies);
    for (std::int64_t copy = 0; copy < copyCount; ++copy) {
        const TimeNs shift = copy * tiler.period() + variant.shiftOf(copy);
        for (std::size_t i = 0; i < source.collectives.size(); ++i) {
            auto k = source.collectives[i];
            k.end = variant.ncclEnd(k.end, nextStart[i]) + shift;
            k.start += shift;
            s.collectives.push_back(std::move(k));
        }
        for (auto step : source.steps) {
            step.number += variant.renumberSteps ? copy * tiler.stepStride() : 0;
            step.start += shift;
            step.end += shift;
            s.steps.push_back(step);
        }
    }
    s.identity.rank = variant.rank;
    s.identity.worldSize = variant.worldSize;
    s.traceStart += variant.shiftOf(0);
    s.traceEnd += (copyCount - 1) * tiler.period() + variant.shiftOf(copyCount - 1);
    auto& t = s.totals;
    t.steps = s.steps.size();
    t.windowStart += variant.shiftOf(0);
    t.windowEnd += (copyCount - 1) * tiler.period() + variant.shiftOf(copyCount - 1);
    t.kernelTime *= copyCount;
    t.idleTime *= copyCount;
    t.collectiveTime = 0;
    for (const auto& k : s.collectives)
        t.collectiveTime += k.end - k.start;
    return s;
}

bool sameSchedule(const analysis::RankSummaryFile& a, const analysis::RankSummaryFile& b)
{
    if (a.collectives.size() != b.collectives.size() || a.steps.size() != b.steps.size())
        return false;
    for (std::size_t i = 0; i < a.collectives.size(); ++i) {
        if (a.collectives[i].start != b.collectives[i].start || a.collectives[i].end != b.collectives[i].end)
            return false;
    }
    for (std::size_t i = 0; i < a.steps.size(); ++i) {
        if (a.steps[i].number != b.steps[i].number || a.steps[i].start != b.steps[i].start)
            return false;
    }
    return true;
}

int summaries(const std::string& dir, int ranks, std::uint64_t copies)
{
    std::filesystem::create_directories(dir);
    const auto scratch = std::filesystem::temp_directory_path() / "kinetoscope-bench-job-sources";
    std::filesystem::create_directories(scratch);
    const auto tilers = tilersInStep({sourcePath(0), sourcePath(1)});
    const PlantedJob job = plantedJob(ranks);
    // Checked against the real path: the summary of a 3-copy trace of the straggler and the slow link.
    for (const int r : {job.straggler, job.slowLink}) {
        if (r < 0)
            continue;
        const auto& tiler = tilers[std::size_t(r % 2)];
        const auto one = (scratch / "one.pt.trace.json").string(), three = (scratch / "three.pt.trace.json").string();
        RankVariant identityOnly{};
        identityOnly.rank = r;
        identityOnly.worldSize = ranks;
        tiler.write(one, 0, 1, identityOnly);
        tiler.write(three, 0, 3, job.variants[std::size_t(r)]);
        if (!sameSchedule(tileSummary(summarizeFile(one), tiler, 3, job.variants[std::size_t(r)]),
                          summarizeFile(three)))
            return std::fprintf(stderr, "bench_job: the tiled summary of rank %d differs from the tiled trace's\n", r),
                   1;
    }
    analysis::RankSummaryFile sources[2];
    for (int r = 0; r < 2; ++r) {
        const auto path = (scratch / ("source" + std::to_string(r) + ".pt.trace.json")).string();
        RankVariant identityOnly{};
        identityOnly.rank = r;
        identityOnly.worldSize = ranks;
        tilers[std::size_t(r)].write(path, 0, 1, identityOnly);
        sources[r] = summarizeFile(path);
    }
    const auto start = Clock::now();
    std::uint64_t bytes = 0;
    std::size_t collectives = 0;
    for (int r = 0; r < ranks; ++r) {
        auto s = tileSummary(sources[r % 2], tilers[std::size_t(r % 2)], copies, job.variants[std::size_t(r)]);
        s.identity.file = rankFile(dir, r);
        collectives = s.collectives.size();
        const std::string text = analysis::rankSummaryToJson(s).dump();
        std::ofstream((std::filesystem::path(dir) / (rankStem(r) + analysis::kRankSummarySuffix)), std::ios::binary)
            << text << '\n';
        bytes += text.size() + 1;
    }
    std::printf("wrote %d summaries × %zu collectives in %s: %.0f MB (%.1f s); tiled summaries equal the "
                "summaries of tiled traces; planted straggler rank %d, slow link rank %d\n",
                ranks, collectives, dir.c_str(), double(bytes) / 1e6, secondsSince(start), job.straggler, job.slowLink);
    return 0;
}

int analyze(const std::string& dir)
{
    auto start = Clock::now();
    double cpu = cpuSeconds();
    auto set = analysis::readRankSummaryFolder(dir);
    const double readSeconds = secondsSince(start), readCpu = cpuSeconds() - cpu;
    for (const auto& e : set.errors)
        std::printf("skipped: %s\n", e.c_str());
    const int ranks = static_cast<int>(set.ranks.size());
    start = Clock::now();
    cpu = cpuSeconds();
    const auto report = analysis::analyzeRankSummaries(std::move(set.ranks));
    const double analysisSeconds = secondsSince(start), analysisCpu = cpuSeconds() - cpu;
    std::size_t participants = 0;
    for (const auto& c : report.matching.collectives)
        participants += c.ranks.size();
    std::printf("%d summaries read in %.2f s wall, %.2f s CPU; %zu collectives matched (%zu rank kernels) in %.3f s "
                "wall, the whole cross-rank analysis %.3f s wall, %.3f s CPU; peak RSS %.0f MB\n",
                ranks, readSeconds, readCpu, report.matching.collectives.size(), participants,
                report.matching.matchSeconds, analysisSeconds, analysisCpu, peakRssMb());
    const PlantedJob job = plantedJob(ranks);
    std::vector<TimeNs> collectiveTimes;
    TimeNs slowLinkTime = 0;
    for (const auto& r : report.ranks) {
        collectiveTimes.push_back(r.collectiveTime);
        if (r.rank == job.slowLink)
            slowLinkTime = r.collectiveTime;
    }
    std::nth_element(collectiveTimes.begin(), collectiveTimes.begin() + ptrdiff_t(collectiveTimes.size() / 2),
                     collectiveTimes.end());
    std::printf("verdict: %s\nplanted straggler rank %d: %s; slow link rank %d: %.1f ms in collectives against a "
                "median of %.1f ms\n",
                report.straggler.text.c_str(), job.straggler,
                report.straggler.rank == job.straggler ? "named" : "NOT named", job.slowLink, slowLinkTime / 1e6,
                collectiveTimes.empty() ? 0.0 : collectiveTimes[collectiveTimes.size() / 2] / 1e6);
    return report.straggler.rank == job.straggler ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
    const std::string command = argc > 2 ? argv[1] : "";
    const int ranks = argc > 3 ? std::atoi(argv[3]) : 0;
    const std::uint64_t copies = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1;
    if (command == "generate" && ranks > 0 && copies > 0)
        return generate(argv[2], ranks, copies);
    if (command == "summaries" && ranks > 0 && copies > 0)
        return summaries(argv[2], ranks, copies);
    if (command == "analyze")
        return analyze(argv[2]);
    std::fprintf(stderr, "usage: bench_job generate DIR N [COPIES] | summaries DIR N COPIES | analyze DIR\n");
    return 2;
}
