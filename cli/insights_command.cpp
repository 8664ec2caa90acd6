// kinetoscope-cli insights: what to fix, with the time at stake per step and the evidence.
#include "cli/command.h"
#include "core/analysis/insightsjson.h"
#include "core/loading/loader.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace ks::cli {

namespace {

void printText(const std::vector<analysis::Insight>& insights, const std::vector<std::string>& files,
               const std::vector<std::shared_ptr<const facts::TraceFacts>>& traces)
{
    if (insights.empty()) {
        std::cout << "No findings.\n";
        return;
    }
    constexpr std::size_t kEvidenceShown = 5;
    for (const auto& insight : insights) {
        const Trace& trace = *traces[std::size_t(insight.traceIndex)]->trace;
        std::printf("[%s] %s  %.1f us/step (%.1f %% of the step)\n",
                    std::string(analysis::severityName(insight.severity)).c_str(), insight.id.c_str(), insight.timeUs,
                    insight.share * 100.0);
        std::cout << "  " << insight.title << '\n';
        if (files.size() > 1)
            std::cout << "  in " << files[std::size_t(insight.traceIndex)] << '\n';
        std::cout << "  why: " << insight.explanation << '\n' << "  fix: " << insight.advice << '\n';
        std::cout << "  evidence (" << insight.evidence.size() << "):\n";
        for (std::size_t i = 0; i < insight.evidence.size() && i < kEvidenceShown; ++i) {
            const auto& e = insight.evidence[i];
            std::printf("    %.3f us  %s  %s  %s%s%s\n", double(e.start) / 1000.0, formatDuration(e.duration).c_str(),
                        e.track == kNoIndex ? "" : trace.trackDisplayName(e.track).c_str(), e.name.c_str(),
                        e.context.empty() ? "" : "  <- ", e.context.c_str());
        }
        if (insight.evidence.size() > kEvidenceShown)
            std::cout << "    ... " << insight.evidence.size() - kEvidenceShown << " more\n";
        std::cout << '\n';
    }
}

void printStepsHeader(const std::vector<std::string>& files,
                      const std::vector<std::shared_ptr<const facts::TraceFacts>>& traces)
{
    for (std::size_t i = 0; i < traces.size(); ++i) {
        const facts::TraceFacts& t = *traces[i];
        if (files.size() > 1)
            std::cout << files[i] << ": ";
        if (t.hasSteps())
            std::printf("%zu step(s) from %s, mean %s; per-step times are averages over them\n", t.windows.steps.size(),
                        t.windows.sourceName.c_str(), formatDuration(t.meanStepTime()).c_str());
        else
            std::printf("no steps found: per-step times are over the whole trace (--steps NAME|REGEX picks them)\n");
    }
    std::cout << '\n';
}

struct InsightsOptions {
    std::vector<std::string> files;
    bool json = false;
    facts::StepRules steps;
    analysis::PeakOverrides peaks;
};

int runInsights(const InsightsOptions& options)
{
    const auto& files = options.files;
    std::vector<std::shared_ptr<const facts::TraceFacts>> traces;
    for (const auto& path : files) {
        const auto loaded = loadTraceFile(path);
        if (!loaded.ok()) {
            std::fprintf(stderr, "kinetoscope-cli insights: %s: %s\n", path.c_str(),
                         loaded.fatal ? loaded.fatal->located().c_str() : "cancelled");
            return 1;
        }
        traces.push_back(facts::makeTraceFacts(loaded.trace, options.steps));
    }
    const auto insights = analysis::findInsights(traces, options.peaks);
    if (options.json) {
        std::cout << analysis::insightsToJson(insights, traces, files)
                         .dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << '\n';
    } else {
        printStepsHeader(files, traces);
        printText(insights, files, traces);
    }
    return 0;
}

} // namespace

void addInsightsCommand(CLI::App& app)
{
    auto options = std::make_shared<InsightsOptions>();
    auto* command = app.add_subcommand("insights", "what to fix: findings with time per step, evidence and advice");
    command->footer("Findings with the time they cost per step, the events that prove them and the fix.\n"
                    "Several FILEs are the ranks of one run.\n\n"
                    "--json: {\"steps\",\"steps_source\",\"insights\":[{\"id\",\"severity\",\"title\",\"time_us\",\n"
                    "        \"share\",\"evidence\":[{\"name\",\"ts_us\",\"dur_us\",\"track\"}],\"advice\",...}],\n"
                    "        \"traces\":[{\"steps\",\"steps_source\",\"mean_step_us\",\"file\"}]}");
    command->add_flag("--json", options->json, "machine-readable output");
    addStepsOption(command, options->steps);
    addPeakOptions(command, options->peaks); // low-gemm-efficiency's roofs
    command->add_option("FILE", options->files, "trace files (.json or .json.gz); several = ranks of one run")
        ->type_name("")
        ->required();
    command->callback([options] { exitWith(runInsights(*options)); });
}

} // namespace ks::cli
