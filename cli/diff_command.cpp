// kinetoscope-cli diff: compare two traces (before/after), headless view of the diff tables.
#include "cli/command.h"
#include "core/analysis/diff.h"
#include "core/analysis/diffjson.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

namespace ks::cli {

namespace {

struct DiffCommandOptions {
    std::string base, neu;
    std::size_t top = 20; // 0: all rows
    bool json = false;
    bool families = false;
    bool groupByShape = false;
    facts::StepRules steps;
    int baseRank = -1, newRank = -1; // one rank of a merged collected file (-1: the whole file)
};

std::string cell(double ns, bool present)
{
    return present ? formatDuration(static_cast<TimeNs>(std::llround(ns))) : std::string("-");
}

std::string deltaCell(const analysis::DiffRow& r)
{
    const double d = r.deltaNs();
    std::string text = (d < 0 ? "-" : "+") + formatDuration(static_cast<TimeNs>(std::llround(std::fabs(d))));
    if (r.basePresent && r.newPresent && r.baseNs != 0) {
        char pct[32];
        std::snprintf(pct, sizeof pct, " (%+.0f%%)", r.deltaPercent());
        text += pct;
    }
    return text;
}

std::string clip(const std::string& s, std::size_t width)
{
    return s.size() > width ? s.substr(0, width - 3) + "..." : s;
}

void printTable(const char* title, const std::vector<analysis::DiffRow>& rows, std::size_t top, bool counts)
{
    constexpr std::size_t kName = 70;
    std::printf("\n%s\n", title);
    std::printf("%-*s %12s %12s %20s%s\n", int(kName), "name", "BASE", "NEW", "delta",
                counts ? "     calls BASE -> NEW" : "");
    for (std::size_t i = 0; i < rows.size() && (top == 0 || i < top); ++i) {
        const auto& r = rows[i];
        std::printf("%-*s %12s %12s %20s", int(kName), clip(r.name, kName).c_str(),
                    cell(r.baseNs, r.basePresent).c_str(), cell(r.newNs, r.newPresent).c_str(), deltaCell(r).c_str());
        if (counts)
            std::printf("  %10llu -> %-10llu", static_cast<unsigned long long>(r.baseCount),
                        static_cast<unsigned long long>(r.newCount));
        std::printf("\n");
    }
    if (top && rows.size() > top)
        std::printf("(%zu more rows; --top 0 shows all)\n", rows.size() - top);
}

void printText(const analysis::DiffReport& r, const DiffCommandOptions& o)
{
    const auto side = [](const std::string& file, int rank) {
        return rank >= 0 ? file + " rank " + std::to_string(rank) : file;
    };
    std::printf("BASE %s: %zu steps from %s, %s\nNEW  %s: %zu steps from %s, %s\n\n%s\n",
                side(r.base.file, o.baseRank).c_str(), r.base.steps, r.base.stepsSource.c_str(), r.base.device.c_str(),
                side(r.neu.file, o.newRank).c_str(), r.neu.steps, r.neu.stepsSource.c_str(), r.neu.device.c_str(),
                r.summary.c_str());
    for (const auto& note : r.notes)
        std::printf("note: %s\n", note.c_str());
    printTable("Step time breakdown (per step)", r.categories, 0, false);
    printTable(o.families ? "Kernel families (per step)" : "Kernels (per step)", r.kernels, o.top, true);
    if (!o.families)
        printTable("Kernel families (per step)", r.kernelFamilies, o.top, true);
    printTable("Operators (self CPU per step)", r.ops, o.top, true);
    printTable("Memcpy / memset (per step)", r.memcpy, o.top, true);
}

int runDiff(const DiffCommandOptions& o)
{
    auto loaded = analysis::loadDiffPair(o.base, o.neu, nullptr, o.steps);
    if (loaded.error) {
        std::fprintf(stderr, "kinetoscope-cli diff: %s\n", loaded.error->c_str());
        return 1;
    }
    const analysis::DiffSides sides(loaded.workspace, o.baseRank, o.newRank);
    if (sides.error()) {
        std::fprintf(stderr, "kinetoscope-cli diff: %s\n", sides.error()->c_str());
        return 1;
    }
    analysis::DiffOptions options;
    options.kernelFamilies = o.families;
    options.groupOpsByInputShapes = o.groupByShape;
    const auto report = analysis::diffTraces(*sides.base(), *sides.neu(), options);
    if (o.json) {
        nlohmann::json json = analysis::diffReportJson(report, o.top, o.families, o.groupByShape);
        analysis::addDiffSideRanks(json, o.baseRank, o.newRank);
        std::cout << json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else
        printText(report, o);
    return 0;
}

} // namespace

void addDiffCommand(CLI::App& app)
{
    auto options = std::make_shared<DiffCommandOptions>();
    auto* command = app.add_subcommand("diff", "compare two traces: step time, categories, operators, kernels, copies");
    command->footer("Compares BASE and NEW: step time, the step-time breakdown, operators, kernels and memcpy\n"
                    "kinds, each BASE / NEW / delta, per step (averaged over each side's steps: ProfilerStep#N, else\n"
                    "--steps, counter labels or Optimizer.step; counts are totals). Sorted by |delta|.\n"
                    "--json: base, new (file, steps, steps_source, step_time_us), steps and steps_source ({base,\n"
                    "new}), speedup, summary, notes, categories, kernels, kernel_families, ops, memcpy.\n"
                    "--base-rank / --new-rank N: rank N of a merged collected file on that side (the same file\n"
                    "may be both: `diff --base-rank 0 --new-rank 1 run.json run.json`); JSON base_rank, new_rank.");
    command->add_option("--top", options->top, "rows per table (default 20; 0: all)")->type_name("N")->check(kCount);
    command->add_flag("--families", options->families, "kernels grouped by family (GEMM, attention, elementwise, ...)");
    command->add_flag("--group-by-shape", options->groupByShape, "operators per name and input shapes (record_shapes)");
    command->add_flag("--json", options->json, "the report as JSON");
    addStepsOption(command, options->steps);
    command->add_option("--base-rank", options->baseRank, "BASE: rank N of a merged collected file")
        ->type_name("N")
        ->check(kCount);
    command->add_option("--new-rank", options->newRank, "NEW: rank N of a merged collected file")
        ->type_name("N")
        ->check(kCount);
    command->add_option("BASE", options->base, "the trace before (.json or .json.gz)")->type_name("")->required();
    command->add_option("NEW", options->neu, "the trace after")->type_name("")->required();
    command->callback([options] { exitWith(runDiff(*options)); });
}

} // namespace ks::cli
