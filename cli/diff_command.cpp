// kinetoscope-cli diff: compare two traces (before/after), headless view of the diff tables.
#include "cli/command.h"
#include "core/analysis/diff.h"

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
};

double us(double ns) { return std::round(ns) / 1000.0; }

nlohmann::json sideJson(const analysis::DiffSide& side)
{
    return {{"file", side.file},
            {"steps", side.steps},
            {"steps_source", side.stepsSource},
            {"step_time_us", us(side.stepTimeNs)},
            {"device", side.device}};
}

template <class Fill>
nlohmann::json rowsJson(const std::vector<analysis::DiffRow>& rows, std::size_t top, Fill fill)
{
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 0; i < rows.size() && (top == 0 || i < top); ++i) {
        const auto& r = rows[i];
        nlohmann::json row = {{"name", r.name}};
        fill(r, row);
        row["delta_us"] = us(r.deltaNs());
        row["delta_pct"] = r.deltaPercent();
        out.push_back(std::move(row));
    }
    return out;
}

nlohmann::json reportJson(const analysis::DiffReport& r, const DiffCommandOptions& o)
{
    nlohmann::json j;
    j["base"] = sideJson(r.base);
    j["new"] = sideJson(r.neu);
    j["steps"] = {{"base", r.base.steps}, {"new", r.neu.steps}};
    j["steps_source"] = {{"base", r.base.stepsSource}, {"new", r.neu.stepsSource}};
    j["speedup"] = r.speedup;
    j["summary"] = r.summary;
    j["notes"] = r.notes;
    j["per_step"] = "times are per-step averages; counts are totals over the steps";
    j["categories"] = rowsJson(r.categories, 0, [](const auto& row, auto& out) {
        out["base_us"] = us(row.baseNs);
        out["new_us"] = us(row.newNs);
    });
    auto kernel = [&](const analysis::DiffRow& row, nlohmann::json& out) {
        out["base_count"] = row.baseCount;
        out["new_count"] = row.newCount;
        out["base_us"] = us(row.baseNs);
        out["new_us"] = us(row.newNs);
        out["base_mean_us"] = us(r.meanPerCallNs(row, true));
        out["new_mean_us"] = us(r.meanPerCallNs(row, false));
        if (!row.detail.empty())
            out["detail"] = row.detail;
    };
    j["kernels"] = rowsJson(r.kernels, o.top, kernel);
    j["kernel_families"] = rowsJson(o.families ? r.kernels : r.kernelFamilies, o.top, kernel);
    j["ops"] = rowsJson(r.ops, o.top, [&](const analysis::DiffRow& row, nlohmann::json& out) {
        if (o.groupByShape)
            out["input_shapes"] = row.detail;
        out["base_calls"] = row.baseCount;
        out["new_calls"] = row.newCount;
        out["base_self_cpu_us"] = us(row.baseNs);
        out["new_self_cpu_us"] = us(row.newNs);
        out["base_cpu_total_us"] = us(row.baseTotalCpuNs);
        out["new_cpu_total_us"] = us(row.newTotalCpuNs);
        out["base_device_us"] = us(row.baseDeviceNs);
        out["new_device_us"] = us(row.newDeviceNs);
    });
    j["memcpy"] = rowsJson(r.memcpy, o.top, [](const analysis::DiffRow& row, nlohmann::json& out) {
        out["base_count"] = row.baseCount;
        out["new_count"] = row.newCount;
        out["base_us"] = us(row.baseNs);
        out["new_us"] = us(row.newNs);
        out["base_bytes"] = row.baseBytes;
        out["new_bytes"] = row.newBytes;
    });
    return j;
}

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
    std::printf("BASE %s: %zu steps from %s, %s\nNEW  %s: %zu steps from %s, %s\n\n%s\n", r.base.file.c_str(),
                r.base.steps, r.base.stepsSource.c_str(), r.base.device.c_str(), r.neu.file.c_str(), r.neu.steps,
                r.neu.stepsSource.c_str(), r.neu.device.c_str(), r.summary.c_str());
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
    analysis::DiffOptions options;
    options.stepRules = o.steps;
    options.kernelFamilies = o.families;
    options.groupOpsByInputShapes = o.groupByShape;
    const auto report = analysis::diffTraces(loaded.workspace.members()[0], loaded.workspace.members()[1], options);
    if (o.json)
        std::cout << reportJson(report, o).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    else
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
                    "new}), speedup, summary, notes, categories, kernels, kernel_families, ops, memcpy.");
    command->add_option("--top", options->top, "rows per table (default 20; 0: all)")->type_name("N")->check(kCount);
    command->add_flag("--families", options->families, "kernels grouped by family (GEMM, attention, elementwise, ...)");
    command->add_flag("--group-by-shape", options->groupByShape, "operators per name and input shapes (record_shapes)");
    command->add_flag("--json", options->json, "the report as JSON");
    addStepsOption(command, options->steps);
    command->add_option("BASE", options->base, "the trace before (.json or .json.gz)")->type_name("")->required();
    command->add_option("NEW", options->neu, "the trace after")->type_name("")->required();
    command->callback([options] { exitWith(runDiff(*options)); });
}

} // namespace ks::cli
