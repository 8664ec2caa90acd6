// kinetoscope-cli critical-path: what bounds each step (issue 36), with what-ifs.
#include "cli/command.h"
#include "core/analysis/criticalpathjson.h"
#include "core/analysis/rankscriticalpath.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

namespace ks::cli {

namespace {

struct CriticalPathOptions {
    std::vector<std::string> paths;
    std::vector<std::string> whatIfs;
    long long step = -1; // -1: every step
    int rank = -1; // whose steps (several rank files); -1: the first member's
    bool stepGiven = false;
    std::optional<std::pair<TimeNs, TimeNs>> range; // --range, instead of the steps
    bool json = false;
    std::size_t top = 12; // segments listed per step in the text output (grouped by name)
};

void printPath(const analysis::CriticalPath& path, std::size_t top)
{
    for (int k = 0; k < analysis::kPathKindCount; ++k) {
        const TimeNs t = path.breakdown[std::size_t(k)];
        if (t > 0)
            std::printf("  %-16s %10.3f ms %6.1f%%\n",
                        std::string(analysis::pathKindName(analysis::PathKind(k))).c_str(), double(t) / 1e6,
                        path.length ? 100.0 * double(t) / double(path.length) : 0.0);
    }
    // The path's time by what it is spent on (kind and name), longest first.
    std::map<std::pair<analysis::PathKind, std::string>, std::pair<TimeNs, std::size_t>> byName;
    for (const auto& s : path.segments) {
        auto& [t, n] = byName[{s.kind, s.name}];
        t += s.duration;
        ++n;
    }
    std::vector<std::pair<TimeNs, std::string>> rows;
    for (const auto& [key, value] : byName) {
        char line[64];
        std::snprintf(line, sizeof line, " %-15s %5zu× ", std::string(analysis::pathKindName(key.first)).c_str(),
                      value.second);
        rows.emplace_back(value.first, line + (key.second.empty() ? std::string("(between ops)") : key.second));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::printf("  longest on the path:\n");
    for (std::size_t i = 0; i < rows.size() && (top == 0 || i < top); ++i)
        std::printf("  %10.3f ms %s\n", double(rows[i].first) / 1e6, rows[i].second.substr(0, 110).c_str());
}

int runCriticalPath(const CriticalPathOptions& o)
{
    std::vector<analysis::WhatIf> whatIfs;
    for (const auto& text : o.whatIfs) {
        std::string error;
        whatIfs.push_back(*analysis::WhatIf::parse(text, error)); // checked by the option's validator
    }
    std::vector<analysis::FileError> errors;
    const auto files = analysis::expandTracePaths(o.paths, errors);
    auto loaded = analysis::loadWorkspace(files);
    errors.insert(errors.end(), loaded.errors.begin(), loaded.errors.end());
    for (const auto& e : errors)
        std::fprintf(stderr, "kinetoscope-cli critical-path: %s: %s\n", e.file.c_str(), e.message.c_str());
    analysis::Workspace ws = std::move(loaded.workspace);
    if (ws.size() == 0) {
        std::fprintf(stderr, "kinetoscope-cli critical-path: no trace could be opened\n");
        return 1;
    }
    const analysis::RanksCriticalPath ranks(std::move(ws));
    std::vector<std::string> warnings = ranks.warnings();
    std::uint32_t primary = 0;
    if (o.rank >= 0) {
        const auto member = ranks.memberOfRank(o.rank);
        if (!member) {
            std::fprintf(stderr, "kinetoscope-cli critical-path: --rank: no file is rank %d\n", o.rank);
            return 1;
        }
        primary = *member;
    }
    std::vector<analysis::StepCriticalPath> steps;
    if (o.range) {
        // On the axis: the first rank's own time (the times the JSON reports).
        steps.push_back(ranks.analysis().analyzeRange(o.range->first, o.range->second, whatIfs, primary));
        steps.back().label = "range";
    } else {
        steps = ranks.analysis().analyzeSteps(whatIfs, primary);
    }
    if (o.stepGiven) {
        std::erase_if(steps, [&](const auto& s) { return s.step != o.step; });
        if (steps.empty()) {
            std::fprintf(stderr, "kinetoscope-cli critical-path: --step: the trace has no step %lld\n", o.step);
            return 1;
        }
    }
    analysis::appendStepWarnings(steps, warnings);
    if (o.json) {
        std::cout << analysis::criticalPathReportJson(steps, whatIfs, warnings)
                         .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                  << '\n';
        return 0;
    }
    for (const auto& s : steps) {
        if (s.label == "range")
            std::printf("range");
        else
            std::printf("step %lld", s.step);
        std::printf(": %.3f ms critical path over [%.3f, %.3f] ms\n", double(s.path.length) / 1e6,
                    double(s.start) / 1e6, double(s.end) / 1e6);
        printPath(s.path, o.top);
        if (s.whatIf) {
            std::printf("  what-if: %.3f ms (%+.1f%%)\n", double(s.whatIf->length) / 1e6,
                        s.path.length ? 100.0 * (double(s.whatIf->length) / double(s.path.length) - 1.0) : 0.0);
            printPath(*s.whatIf, o.top);
        }
        std::printf("\n");
    }
    for (const auto& w : warnings)
        std::printf("warning: %s\n", w.c_str());
    return 0;
}

// "START_US:END_US" (µs, the times --json reports) -> ns; nullopt when it is not that.
std::optional<std::pair<TimeNs, TimeNs>> parseRange(const std::string& text)
{
    const auto colon = text.find(':');
    if (colon == std::string::npos)
        return std::nullopt;
    const std::string from = text.substr(0, colon), to = text.substr(colon + 1);
    char *endFrom = nullptr, *endTo = nullptr;
    const double a = std::strtod(from.c_str(), &endFrom), b = std::strtod(to.c_str(), &endTo);
    if (from.empty() || to.empty() || *endFrom || *endTo || !std::isfinite(a) || !std::isfinite(b) || a >= b
        || std::fabs(a) > 9e12 || std::fabs(b) > 9e12)
        return std::nullopt;
    return std::make_pair(TimeNs(std::llround(a * 1000.0)), TimeNs(std::llround(b * 1000.0)));
}

const CLI::Validator kRangeText(
    [](const std::string& text) -> std::string {
        return parseRange(text)
            ? std::string()
            : "needs START_US:END_US with START_US < END_US (µs, as --json reports them), got '" + text + "'";
    },
    "");

const CLI::Validator kWhatIfText(
    [](const std::string& text) -> std::string {
        std::string error;
        return analysis::WhatIf::parse(text, error) ? std::string() : error;
    },
    "");

} // namespace

void addCriticalPathCommand(CLI::App& app)
{
    auto options = std::make_shared<CriticalPathOptions>();
    auto* command = app.add_subcommand("critical-path", "the critical path of each step, with what-ifs");
    command->footer(
        "The longest chain of dependencies through each step: CPU ops on their threads, launches, GPU work\n"
        "on its streams, events between streams, host waits, the forward -> backward hand-off and, with\n"
        "several rank files, collectives waiting for the last rank (collective_wait). Its length is the\n"
        "step's span (--range: the range's); the breakdown says what the path is spent on. --what-if scales matching "
        "work by a factor (0 removes,\n"
        "0.5 halves) and re-solves: 'kernel:REGEX=F', 'op:REGEX=F', 'family:NAME=F' (kernel family, e.g.\n"
        "GEMM), 'category:NAME=F' (cpu_op, launch, kernel, memcpy, memset, sync_wait, gpu_idle,\n"
        "collective_wait, other). Several --what-if combine.");
    auto* step = command->add_option("--step", options->step, "only the step with this number (ProfilerStep#N)")
                     ->type_name("N")
                     ->each([options](const std::string&) { options->stepGiven = true; });
    command
        ->add_option("--rank", options->rank,
                     "with several rank files: the rank whose steps are analyzed (default: the lowest)")
        ->type_name("N")
        ->check(CLI::NonNegativeNumber);
    command
        ->add_option_function<std::string>(
            "--range", [options](const std::string& text) { options->range = parseRange(text); },
            "the path of this time range instead of the steps (µs on the first rank's clock, as --json reports)")
        ->type_name("START_US:END_US")
        ->check(kRangeText)
        ->excludes(step);
    command->add_option("--what-if", options->whatIfs, "KIND:PATTERN=FACTOR, repeatable")
        ->type_name("SPEC")
        ->check(kWhatIfText);
    command->add_option("--top", options->top, "groups of segments listed per step in the text output (0: all)")
        ->type_name("N")
        ->check(kCount);
    command->add_flag("--json", options->json, "the paths as JSON");
    command->add_option("FILE", options->paths, "trace files (several: the ranks of one run)")
        ->type_name("")
        ->required();
    command->callback([options] { exitWith(runCriticalPath(*options)); });
}

} // namespace ks::cli
