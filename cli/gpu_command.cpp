// kinetoscope-cli gpu: GPU efficiency metrics (the TensorBoard plugin's GPU summary), the
// step-time breakdown and nvprof's summary ("GPU activities", "API calls").
#include "cli/command.h"
#include "core/analysis/workspace.h"
#include "core/gpu/gpumetrics.h"
#include "core/gpu/gpureportjson.h"
#include "core/gpu/nvprofsummary.h"
#include "core/gpu/stepbreakdown.h"
#include "core/loading/loader.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

namespace ks::cli {

namespace {

using gpu::StepRole;

struct GpuOptions {
    std::string path;
    bool json = false;
    bool pluginCompat = false;
    facts::StepRules steps;
    int rank = -1; // --rank: one rank of a merged collected file
};

void printNvprofSection(const char* title, const std::vector<gpu::NvprofRow>& rows)
{
    std::printf("%16s  Time(%%)      Time     Calls       Avg       Min       Max  Name\n", "Type");
    bool first = true;
    for (const auto& r : rows) {
        std::printf("%16s  %6.2f%%  %8s  %8llu  %8s  %8s  %8s  %s", first ? title : "", r.timePercent,
                    gpu::formatNvprofTime(double(r.total)).c_str(), static_cast<unsigned long long>(r.calls),
                    gpu::formatNvprofTime(r.average()).c_str(), gpu::formatNvprofTime(double(r.min)).c_str(),
                    gpu::formatNvprofTime(double(r.max)).c_str(), r.name.c_str());
        if (r.bytes >= 0)
            std::printf("  (%lld bytes)", static_cast<long long>(r.bytes));
        std::printf("\n");
        first = false;
    }
}

void printText(const Trace& trace, const gpu::GpuAnalysis& a, const gpu::StepBreakdown& b, const gpu::NvprofSummary& nv)
{
    const auto& w = a.windows;
    std::printf("Steps window: %s (%zu step(s), steps from %s)   global window: %s\n",
                formatDuration(w.stepsSpan()).c_str(), w.steps.size(), w.sourceName.c_str(),
                formatDuration(w.globalSpan()).c_str());
    if (!w.hasHostEvents)
        std::printf("  (no host events: the steps window is the global window)\n");
    for (const auto& s : a.summaries) {
        const DeviceProperties* d = trace.deviceFor(s.device);
        std::printf("\nGPU %d", s.device);
        if (d)
            std::printf(" · %s · %s · compute capability %s", d->name.c_str(),
                        gpu::formatDeviceMemory(d->totalGlobalMem).c_str(), gpu::computeCapability(d).c_str());
        std::printf("\n  GPU Utilization          %s\n", gpu::formatPluginPercent(100.0 * s.steps.utilization).c_str());
        std::printf("  Est. SM Efficiency       %s\n",
                    s.steps.smEfficiency ? gpu::formatPluginPercent(100.0 * *s.steps.smEfficiency).c_str() : "-");
        std::printf("  Est. Achieved Occupancy  %s\n",
                    s.steps.achievedOccupancy ? gpu::formatPluginPercent(*s.steps.achievedOccupancy).c_str() : "-");
    }

    std::printf("\nStep time breakdown (µs, %% of step)\n%-10s %10s", "Step", "Total");
    for (std::size_t r = 0; r < gpu::kStepRoleCount; ++r)
        std::printf(" %16s", std::string(gpu::stepRoleName(StepRole(r))).c_str());
    std::printf("\n");
    auto printRow = [](const gpu::StepBreakdownRow& row) {
        std::printf("%-10s %10.0f", row.name.c_str(), std::nearbyint(toMicros(row.total)));
        for (std::size_t r = 0; r < gpu::kStepRoleCount; ++r)
            std::printf(" %8.0f (%5.2f)", std::nearbyint(toMicros(row.parts[r])), row.percent(StepRole(r)));
        std::printf("\n");
    };
    for (const auto& row : b.steps)
        printRow(row);
    printRow(b.average);

    std::printf("\n");
    printNvprofSection("GPU activities:", nv.gpuActivities);
    printNvprofSection("API calls:", nv.apiCalls);
}

int runGpu(const GpuOptions& options)
{
    const LoadResult loaded = loadTraceFile(options.path);
    if (!loaded.ok()) {
        std::fprintf(stderr, "kinetoscope-cli gpu: %s\n",
                     loaded.fatal ? loaded.fatal->located().c_str() : "cannot load the trace");
        return 1;
    }
    // A rank of a merged file is split off as the Ranks dock and `ranks` split it.
    analysis::Workspace ranks;
    std::shared_ptr<const Trace> shown = loaded.trace;
    if (options.rank >= 0) {
        ranks.add(loaded.trace, options.path);
        const analysis::WorkspaceMember* member = ranks.memberOfRank(options.rank);
        if (!member) {
            std::fprintf(stderr, "kinetoscope-cli gpu: %s has no rank %d (its ranks: %s)\n", options.path.c_str(),
                         options.rank, ranks.rankList().c_str());
            return 1;
        }
        shown = member->trace;
    }
    const Trace& trace = *shown;
    const gpu::GpuReportParts parts = gpu::computeGpuReportParts(trace, options.pluginCompat, options.steps);
    if (options.json) {
        nlohmann::json json = gpu::gpuReportJson(trace, parts);
        if (options.rank >= 0)
            json["rank"] = options.rank;
        std::cout << json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else
        printText(trace, parts.analysis, parts.breakdown, parts.nvprof);
    return 0;
}

} // namespace

void addGpuCommand(CLI::App& app)
{
    auto options = std::make_shared<GpuOptions>();
    auto* command =
        app.add_subcommand("gpu", "GPU utilization, SM efficiency, occupancy, step breakdown, nvprof summary");
    command->footer("GPU Utilization, Est. SM Efficiency and Est. Achieved Occupancy per GPU over the steps window,\n"
                    "the step-time breakdown, and nvprof's GPU activities / API calls.\n\n"
                    "--plugin-compat counts GPU-side ProfilerStep copies as steps and keeps the free-time reset,\n"
                    "as TensorBoard's profiler plugin did.\n\n"
                    "Steps: ProfilerStep#N, else --steps, else top-level labels with a counter (step0, step1,\n"
                    "...), else repeated Optimizer.step#...; --json steps and steps_source say which.\n\n"
                    "--rank N: rank N of a merged collected file only (its processes, as `ranks` splits it).");
    command->add_flag("--json", options->json, "machine-readable output");
    command->add_flag("--plugin-compat", options->pluginCompat, "TensorBoard profiler plugin's Overview numbers");
    addStepsOption(command, options->steps);
    command->add_option("--rank", options->rank, "rank N of a merged collected file only")
        ->type_name("N")
        ->check(kCount);
    command->add_option("FILE", options->path, "trace (.json or .json.gz)")->type_name("")->required();
    command->callback([options] { exitWith(runGpu(*options)); });
}

} // namespace ks::cli
