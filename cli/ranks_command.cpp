// kinetoscope-cli ranks: the ranks of a distributed run, NCCL collectives matched across them,
// the per-rank table and the straggler verdict, headless.
#include "cli/command.h"
#include "core/analysis/ranks.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

namespace ks::cli {

namespace {

struct RanksCommandOptions {
    std::vector<std::string> paths;
    std::size_t top = 20; // collectives listed in the text output (0: all)
    bool json = false;
    bool alignSteps = false;
    facts::StepRules steps;
};

// The rule that gave the members' steps; "mixed" when they differ, "none" when no member has
// steps (members without steps, like a merged file's launcher, do not count).
std::string stepsSource(const analysis::Workspace& ws)
{
    std::string source;
    for (const auto& m : ws.members()) {
        if (m.steps.empty())
            continue;
        if (!source.empty() && m.stepsSource != source)
            return "mixed";
        source = m.stepsSource;
    }
    return source.empty() ? "none" : source;
}

double us(TimeNs ns) { return double(ns) / 1000.0; }

nlohmann::json reportJson(const analysis::Workspace& ws, const analysis::RanksReport& r,
                          const std::vector<analysis::FileError>& errors, const analysis::AlignmentReport& alignment)
{
    nlohmann::json j;
    j["ranks"] = nlohmann::json::array();
    for (const auto& s : r.ranks) {
        const auto& id = ws.members()[s.member].identity;
        j["ranks"].push_back({{"rank", s.rank},
                              {"file", id.file},
                              {"label", id.label()},
                              {"world_size", id.worldSize},
                              {"rank_inferred", id.rankInferred},
                              {"steps", s.steps},
                              {"steps_source", ws.members()[s.member].stepsSource},
                              {"step_time_us", us(s.stepTimeMean)},
                              {"kernel_time_us", us(s.kernelTime)},
                              {"collective_time_us", us(s.collectiveTime)},
                              {"collective_wait_us", us(s.collectiveWait)},
                              {"idle_time_us", us(s.idleTime)},
                              {"wait_caused_us", us(s.waitCaused)},
                              {"last_arrivals", s.lastArrivals}});
    }
    j["collectives"] = nlohmann::json::array();
    for (const auto& c : r.matching.collectives) {
        nlohmann::json ranks = nlohmann::json::array();
        for (const auto& p : c.ranks)
            ranks.push_back(
                {{"rank", p.rank}, {"start_us", us(p.start)}, {"end_us", us(p.end)}, {"wait_us", us(p.wait)}});
        j["collectives"].push_back({{"process_group", c.processGroup},
                                    {"seq", c.seq},
                                    {"name", c.name},
                                    {"bytes", c.bytes},
                                    {"dtype", c.dtype},
                                    {"ranks", std::move(ranks)},
                                    {"last_rank", c.lastRank},
                                    {"max_wait_us", us(c.maxWait)},
                                    {"complete", c.complete},
                                    {"mismatch", c.mismatch}});
    }
    const auto& v = r.straggler;
    j["straggler"] = {{"rank", v.rank ? nlohmann::json(*v.rank) : nlohmann::json(nullptr)},
                      {"wait_caused_us", us(v.waitCaused)},
                      {"total_wait_us", us(v.totalWait)},
                      {"share", v.share},
                      {"consistent", v.consistent},
                      {"balanced", v.balanced},
                      {"steps_led", v.stepsLed},
                      {"steps_with_wait", v.stepsWithWait},
                      {"worst_step", v.worstStep},
                      {"worst_step_wait_caused_us", us(v.worstStepWaitCaused)},
                      {"verdict", v.text}};
    j["steps_source"] = stepsSource(ws); // "steps" (below) is the per-step waits; each rank has its count
    j["steps"] = nlohmann::json::array();
    for (const auto& s : r.steps)
        j["steps"].push_back({{"step", s.step},
                              {"rank", s.rank},
                              {"wait_caused_us", us(s.waitCaused)},
                              {"total_wait_us", us(s.totalWait)}});
    j["alignment"] = {{"mode", alignment.mode == analysis::Alignment::AbsoluteClock ? "absolute_clock" : "step_starts"},
                      {"step", alignment.step},
                      {"start_spread_us", us(alignment.startSpread)},
                      {"description", alignment.description}};
    j["warnings"] = ws.warnings();
    for (const auto& w : r.matching.warnings)
        j["warnings"].push_back(w);
    j["errors"] = nlohmann::json::array();
    for (const auto& e : errors)
        j["errors"].push_back({{"file", e.file}, {"message", e.message}});
    j["match_ms"] = r.matching.matchSeconds * 1000.0;
    return j;
}

std::string ms(TimeNs ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", double(ns) / 1e6);
    return buf;
}

void printText(const analysis::Workspace& ws, const analysis::RanksReport& r,
               const analysis::AlignmentReport& alignment, std::size_t top)
{
    std::printf("%zu rank(s); %s\nsteps from %s\n\n", ws.size(), alignment.description.c_str(),
                stepsSource(ws).c_str());
    std::printf("%-32s %5s %10s %10s %10s %10s %10s %10s\n", "rank (times in ms)", "steps", "step", "compute",
                "collective", "wait", "idle", "caused");
    for (const auto& s : r.ranks) {
        std::printf("%-32s %5zu %10s %10s %10s %10s %10s %10s\n",
                    ws.members()[s.member].identity.label().substr(0, 32).c_str(), s.steps, ms(s.stepTimeMean).c_str(),
                    ms(s.kernelTime).c_str(), ms(s.collectiveTime).c_str(), ms(s.collectiveWait).c_str(),
                    ms(s.idleTime).c_str(), ms(s.waitCaused).c_str());
    }
    std::printf("(step: mean step time, or the span of the rank's GPU work when it has no steps; the others are "
                "totals over the steps or that span; caused: the others' wait when this rank arrived last)\n\n%s\n",
                r.straggler.text.c_str());
    for (const auto& s : r.steps) {
        if (s.totalWait > 0)
            std::printf("  step %lld: rank %d caused %s ms of %s ms waiting\n", s.step, s.rank,
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
    auto warnings = ws.warnings();
    warnings.insert(warnings.end(), r.matching.warnings.begin(), r.matching.warnings.end());
    for (const auto& w : warnings)
        std::printf("warning: %s\n", w.c_str());
}

int runRanks(const RanksCommandOptions& o)
{
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
    const auto report = analysis::analyzeRanks(ws);
    if (o.json)
        std::cout
            << reportJson(ws, report, errors, alignment).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
            << '\n';
    else
        printText(ws, report, alignment, o.top);
    return 0;
}

} // namespace

void addRanksCommand(CLI::App& app)
{
    auto options = std::make_shared<RanksCommandOptions>();
    auto* command =
        app.add_subcommand("ranks", "ranks of a distributed run: collectives across ranks, waits, the straggler");
    command->footer("Opens every rank of a distributed run (one file per rank in any order, a folder of them, or\n"
                    "a merged collector file), matches NCCL collectives across ranks per process group, and names\n"
                    "the rank that makes the others wait. Times are on rank 0's clock (baseTimeNanoseconds + ts).\n"
                    "Files that fail to load are reported; the others are analysed.\n"
                    "--json: ranks (each with steps, steps_source), collectives, straggler, steps (per-step waits),\n"
                    "steps_source, alignment, warnings, errors.");
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
