// kinetoscope-cli ranks: the ranks of a distributed run, NCCL collectives matched across them,
// the per-rank table and the straggler verdict, headless.
#include "cli/command.h"
#include "cli/ranksofsummaries.h"
#include "core/analysis/ranks.h"
#include "core/analysis/ranksjson.h"
#include "core/analysis/ranksummary.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

namespace ks::cli {

namespace {

struct RanksCommandOptions {
    std::vector<std::string> paths;
    std::size_t top = 20; // collectives listed in the text output (0: all)
    bool json = false;
    bool alignSteps = false;
    facts::StepRules steps;
};

std::string ms(TimeNs ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", double(ns) / 1e6);
    return buf;
}

// The ranks analysed, from loaded traces or from rank summaries.
struct RankSet {
    std::vector<analysis::TraceIdentity> identities; // per member
    std::vector<std::string> warnings; // the workspace's (different runs, duplicate ranks, ...)
    std::vector<std::string> stepsSources; // per member: the rule that gave its steps
};

void printText(const RankSet& ws, const analysis::RanksReport& r, const analysis::AlignmentReport& alignment,
               std::size_t top)
{
    std::printf("%zu rank(s); %s\n\n", ws.identities.size(), alignment.description.c_str());
    std::printf("%-32s %5s %10s %10s %10s %10s %10s %10s\n", "rank (times in ms)", "steps", "step", "compute",
                "collective", "wait", "idle", "caused");
    for (const auto& s : r.ranks) {
        std::printf("%-32s %5zu %10s %10s %10s %10s %10s %10s\n", ws.identities[s.member].label().substr(0, 32).c_str(),
                    s.steps, ms(s.stepTimeMean).c_str(), ms(s.kernelTime).c_str(), ms(s.collectiveTime).c_str(),
                    ms(s.collectiveWait).c_str(), ms(s.idleTime).c_str(), ms(s.waitCaused).c_str());
    }
    std::printf("(step: mean step time, or the span of the rank's GPU work when it has no steps; the others are "
                "totals over the steps or that span; caused: the others' wait when this rank arrived last)\n\n%s\n",
                r.straggler.text.c_str());
    for (const auto& s : r.steps) {
        if (s.totalWait > 0) // step -1: the set-up's collectives, before the first step
            std::printf("  %s: rank %d caused %s ms of %s ms waiting\n",
                        s.step < 0 ? "before the first step" : ("step " + std::to_string(s.step)).c_str(), s.rank,
                        ms(s.waitCaused).c_str(), ms(s.totalWait).c_str());
    }

    std::vector<const analysis::MatchedCollective*> byWait;
    for (const auto& c : r.matching.collectives)
        byWait.push_back(&c);
    std::stable_sort(byWait.begin(), byWait.end(), [](auto* a, auto* b) { return a->maxWait > b->maxWait; });
    std::printf("\n%zu collective(s) matched; longest waits:\n%-6s %5s %-16s %14s %6s %12s\n",
                r.matching.collectives.size(), "group", "seq", "name", "bytes", "last", "max wait ms");
    for (std::size_t i = 0; i < byWait.size() && (top == 0 || i < top); ++i) {
        const auto& c = *byWait[i];
        std::printf("%-6s %5zu %-16s %14lld %6d %12s%s\n", c.processGroup.c_str(), c.seq, c.name.c_str(),
                    static_cast<long long>(c.bytes), c.lastRank, ms(c.maxWait).c_str(),
                    c.complete ? "" : "  (not on every rank)");
    }
    auto warnings = ws.warnings;
    warnings.insert(warnings.end(), r.matching.warnings.begin(), r.matching.warnings.end());
    for (const auto& w : warnings)
        std::printf("warning: %s\n", w.c_str());
}

void printReport(const RanksCommandOptions& o, const RankSet& set, const analysis::RanksReport& report,
                 const std::vector<analysis::FileError>& errors, const analysis::AlignmentReport& alignment)
{
    if (o.json)
        std::cout << analysis::ranksReportJson(set.identities, set.warnings, report, errors, alignment,
                                               set.stepsSources)
                         .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                  << '\n';
    else
        printText(set, report, alignment, o.top);
}

// The ranks of a folder of `summarize` output, from the summaries alone.
struct SummaryAnalysis {
    RankSet set;
    analysis::RanksReport report;
    std::vector<analysis::FileError> errors;
    analysis::AlignmentReport alignment;
    std::vector<int> missingRanks; // below the world size, without a summary
};

std::string missingRanksText(const std::vector<int>& missing, const std::vector<analysis::RankSummaryFile>& ranks)
{
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 20; ++i)
        list += (i ? ", " : "") + std::to_string(missing[i]);
    if (missing.size() > 20)
        list += ", … (" + std::to_string(missing.size()) + " in all)";
    int worldSize = 0;
    for (const auto& r : ranks)
        worldSize = std::max(worldSize, r.identity.worldSize);
    return "rank(s) " + list + " of world size " + std::to_string(worldSize) + " have no summary";
}

// The ranks of a set of rank summaries (a folder's, or those `summarize --mpi` wrote).
std::optional<SummaryAnalysis> analyzeSummaries(analysis::RankSummarySet summaries, const std::string& folder)
{
    SummaryAnalysis a;
    for (const auto& e : summaries.errors) {
        std::fprintf(stderr, "kinetoscope-cli ranks: %s\n", e.c_str());
        a.errors.push_back({folder, e});
    }
    if (summaries.ranks.empty()) {
        std::fprintf(stderr, "kinetoscope-cli ranks: no rank summary could be read in %s\n", folder.c_str());
        return std::nullopt;
    }
    for (const auto& s : summaries.ranks)
        a.set.identities.push_back(s.identity);
    a.missingRanks = analysis::missingRanks(summaries.ranks);
    if (!a.missingRanks.empty())
        a.set.warnings.push_back(missingRanksText(a.missingRanks, summaries.ranks));
    a.alignment.description = "from " + std::to_string(summaries.ranks.size())
        + " rank summaries, aligned by the absolute clock (baseTimeNanoseconds + ts)";
    a.report = analysis::analyzeRankSummaries(std::move(summaries.ranks));
    return a;
}

int runRanksOnSummaries(const RanksCommandOptions& o)
{
    if (o.alignSteps)
        std::fprintf(stderr,
                     "kinetoscope-cli ranks: --align-steps needs the traces; summaries use the absolute clock\n");
    const auto a = analyzeSummaries(analysis::readRankSummaryFolder(o.paths.front()), o.paths.front());
    if (!a)
        return 1;
    printReport(o, a->set, a->report, a->errors, a->alignment);
    return 0;
}

int runRanks(const RanksCommandOptions& o)
{
    if (o.paths.size() == 1 && analysis::isRankSummaryFolder(o.paths.front()))
        return runRanksOnSummaries(o);
    std::vector<analysis::FileError> errors;
    const auto files = analysis::expandTracePaths(o.paths, errors);
    auto loaded = analysis::loadWorkspace(files, nullptr, 0, o.steps);
    errors.insert(errors.end(), loaded.errors.begin(), loaded.errors.end());
    for (const auto& e : errors)
        std::fprintf(stderr, "kinetoscope-cli ranks: %s: %s\n", e.file.c_str(), e.message.c_str());
    analysis::Workspace& ws = loaded.workspace;
    if (ws.size() == 0) {
        std::fprintf(stderr, "kinetoscope-cli ranks: no trace could be opened\n");
        return 1;
    }
    const auto alignment = o.alignSteps ? ws.alignAtStep() : ws.alignAbsoluteClock();
    RankSet set;
    for (const auto& m : ws.members()) {
        set.identities.push_back(m.identity);
        set.stepsSources.push_back(m.stepsSource);
    }
    set.warnings = ws.warnings();
    printReport(o, set, analysis::analyzeRanks(ws), errors, alignment);
    return 0;
}

} // namespace

JobOfSummaries writeRanksOfSummaries(const std::vector<std::string>& summaries, const std::string& folder,
                                     std::ostream& out)
{
    const auto a = analyzeSummaries(analysis::readRankSummaries(summaries), folder);
    if (!a)
        return {"no rank summary could be read in " + folder, {}, {}};
    auto json = analysis::ranksReportJson(a->set.identities, a->set.warnings, a->report, a->errors, a->alignment);
    json["missing_ranks"] = a->missingRanks;
    out << json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    return {a->report.straggler.text, a->missingRanks,
            a->missingRanks.empty() ? std::string() : a->set.warnings.back()};
}

void addRanksCommand(CLI::App& app)
{
    auto options = std::make_shared<RanksCommandOptions>();
    auto* command =
        app.add_subcommand("ranks", "ranks of a distributed run: collectives across ranks, waits, the straggler");
    command->footer("Opens every rank of a distributed run (one file per rank in any order, a folder of them, or\n"
                    "a merged collector file), matches NCCL collectives across ranks per process group, and names\n"
                    "the rank that makes the others wait. Times are on rank 0's clock (baseTimeNanoseconds + ts).\n"
                    "Files that fail to load are reported; the others are analysed. A folder of rank summaries\n"
                    "(kinetoscope-cli summarize) is analysed from the summaries alone.\n"
                    "--json: ranks, collectives, straggler, steps, alignment, warnings, errors.");
    command
        ->add_option("--top", options->top,
                     "collectives listed in the text output, longest wait first (default 20; 0: all)")
        ->type_name("N")
        ->check(kCount);
    command->add_flag("--align-steps", options->alignSteps,
                      "align ranks at the first common ProfilerStep instead of the absolute clock");
    command->add_flag("--json", options->json, "the report as JSON");
    addStepsOption(command, options->steps);
    command->add_option("FILE", options->paths, "rank trace files or folders")->type_name("")->required();
    command->callback([options] { exitWith(runRanks(*options)); });
}

} // namespace ks::cli
