// kinetoscope-cli tree: top-down or bottom-up call trees with CPU and GPU time, as text,
// JSON or folded stacks for flamegraph.pl, inferno and speedscope (issue 38).
#include "cli/command.h"
#include "core/analysis/calltree.h"
#include "core/analysis/calltreefolded.h"
#include "core/facts/tracefacts.h"
#include "core/loading/loader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

namespace ks::cli {

namespace {

struct TreeOptions {
    std::string path;
    bool bottomUp = false;
    bool gpu = false;
    bool python = false;
    bool modules = false;
    bool json = false;
    bool folded = false;
    std::string step; // the step's number as its ProfilerStep#N names it
    double minPercent = 0.5;
};

const char* kindName(analysis::CallFrameKind kind)
{
    switch (kind) {
    case analysis::CallFrameKind::Root: return "root";
    case analysis::CallFrameKind::Op: return "op";
    case analysis::CallFrameKind::Annotation: return "annotation";
    case analysis::CallFrameKind::Step: return "step";
    case analysis::CallFrameKind::Runtime: return "runtime";
    case analysis::CallFrameKind::Python: return "python";
    case analysis::CallFrameKind::Gpu: return "gpu";
    case analysis::CallFrameKind::Unattributed: return "unattributed";
    }
    return "op";
}

std::string ms(TimeNs ns)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3f", double(ns) / 1e6);
    return buffer;
}

void printJson(const Trace& trace, const analysis::CallTree& tree, const analysis::CallTreeOptions& range)
{
    nlohmann::ordered_json out;
    out["tree"] = tree.bottomUp ? "bottom-up" : "top-down";
    if (range.rangeStart != std::numeric_limits<TimeNs>::min())
        out["range"] = {{"start_ns", range.rangeStart}, {"end_ns", range.rangeEnd}};
    out["steps"] = tree.stepCount;
    out["problems"] = {{"unbalanced", tree.problems.unbalanced},
                       {"gpu_without_launch", tree.problems.gpuWithoutLaunch},
                       {"gpu_without_op", tree.problems.gpuWithoutOp}};
    auto& nodes = out["nodes"] = nlohmann::ordered_json::array();
    for (std::uint32_t n = 0; n < tree.size(); ++n) {
        nodes.push_back({{"id", n},
                         {"parent", n == analysis::CallTree::kRoot ? -1 : std::int64_t(tree.parent[n])},
                         {"name", analysis::callFrameLabel(trace, tree, n)},
                         {"kind", kindName(tree.kind[n])},
                         {"calls", tree.calls[n]},
                         {"cpu_total_ns", tree.cpuTotal[n]},
                         {"cpu_self_ns", tree.cpuSelf[n]},
                         {"gpu_total_ns", tree.gpuTotal[n]},
                         {"gpu_self_ns", tree.gpuSelf[n]}});
    }
    std::cout << out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

// An indented tree, children by decreasing time, nodes below minPercent of the total left out.
void printText(const Trace& trace, const analysis::CallTree& tree, bool gpu, double minPercent)
{
    const auto& total = gpu ? tree.gpuTotal : tree.cpuTotal;
    const double cut = double(total[analysis::CallTree::kRoot]) * minPercent / 100.0;
    std::printf("%10s %12s %12s %12s %12s  %s\n", "Calls", "CPU total ms", "CPU self ms", "GPU total ms", "GPU self ms",
                tree.bottomUp ? "Frame (callers below)" : "Frame (callees below)");
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pending{{analysis::CallTree::kRoot, 0}}; // node, depth
    std::vector<std::uint32_t> children;
    while (!pending.empty()) {
        const auto [node, depth] = pending.back();
        pending.pop_back();
        std::printf("%10llu %12s %12s %12s %12s  %s%s\n", static_cast<unsigned long long>(tree.calls[node]),
                    ms(tree.cpuTotal[node]).c_str(), ms(tree.cpuSelf[node]).c_str(), ms(tree.gpuTotal[node]).c_str(),
                    ms(tree.gpuSelf[node]).c_str(), std::string(2 * std::size_t(depth), ' ').c_str(),
                    analysis::callFrameLabel(trace, tree, node).c_str());
        children.clear();
        for (std::uint32_t c = tree.firstChild[node]; c != analysis::CallTree::kNone; c = tree.nextSibling[c]) {
            if (double(total[c]) >= cut && total[c] > 0)
                children.push_back(c);
        }
        std::sort(children.begin(), children.end(),
                  [&](std::uint32_t a, std::uint32_t b) { return total[a] < total[b]; });
        for (const std::uint32_t c : children)
            pending.emplace_back(c, depth + 1);
    }
    if (tree.problems.unbalanced || tree.problems.gpuWithoutLaunch || tree.problems.gpuWithoutOp)
        std::printf("Problems: %llu partially overlapping events, %llu GPU ops without a launch, %llu without an op\n",
                    static_cast<unsigned long long>(tree.problems.unbalanced),
                    static_cast<unsigned long long>(tree.problems.gpuWithoutLaunch),
                    static_cast<unsigned long long>(tree.problems.gpuWithoutOp));
}

int runTree(const TreeOptions& options)
{
    const auto loaded = loadTraceFile(options.path);
    if (!loaded.ok()) {
        std::fprintf(stderr, "kinetoscope-cli tree: %s: %s\n", options.path.c_str(),
                     loaded.fatal ? loaded.fatal->located().c_str() : "cancelled");
        return 1;
    }
    const auto facts = facts::makeTraceFacts(loaded.trace);
    analysis::CallTreeOptions treeOptions;
    treeOptions.python = options.python || options.modules;
    treeOptions.modulesOnly = options.modules;
    treeOptions.gpuFrames = options.gpu;
    if (!options.step.empty()) {
        const auto& steps = facts->windows.steps;
        const auto it = std::find_if(steps.begin(), steps.end(), [&](const auto& s) { return s.name == options.step; });
        if (!facts->hasSteps() || it == steps.end()) {
            std::string names;
            for (const auto& s : steps)
                names += (names.empty() ? "" : ", ") + s.name;
            std::fprintf(stderr, "kinetoscope-cli tree: %s: no step %s (steps: %s)\n", options.path.c_str(),
                         options.step.c_str(), facts->hasSteps() ? names.c_str() : "none");
            return 1;
        }
        treeOptions.rangeStart = it->hostStart;
        treeOptions.rangeEnd = it->hostEnd;
    }
    analysis::CallTree tree = analysis::buildCallTree(*facts, treeOptions);
    if (options.bottomUp)
        tree = analysis::invertCallTree(tree);
    if (options.folded)
        analysis::writeFoldedStacks(*loaded.trace, tree,
                                    options.gpu ? analysis::FoldedTime::Gpu : analysis::FoldedTime::Cpu, std::cout);
    else if (options.json)
        printJson(*loaded.trace, tree, treeOptions);
    else
        printText(*loaded.trace, tree, options.gpu, options.minPercent);
    return 0;
}

} // namespace

void addTreeCommand(CLI::App& app)
{
    auto options = std::make_shared<TreeOptions>();
    auto* command = app.add_subcommand("tree", "top-down / bottom-up call trees with CPU and GPU time");
    command->footer("Merges every call path of CPU ops, record_function ranges and runtime calls (with --python\n"
                    "also Python frames) into a tree; every kernel, memcpy and memset is credited to the op\n"
                    "that launched it. Columns: calls, CPU total/self, GPU total/self.\n"
                    "--folded writes collapsed stacks (flamegraph.pl, inferno, speedscope): frames joined by ';',\n"
                    "a space, the self time in ns; with --gpu stacks end in '[gpu] KERNEL' and values are GPU time.\n"
                    "--json: {tree, steps, problems, nodes: [{id, parent, name, kind, calls, cpu_total_ns,\n"
                    "cpu_self_ns, gpu_total_ns, gpu_self_ns}]}.");
    command->add_flag("--bottom-up", options->bottomUp, "callers below each frame's self time");
    command->add_flag("--gpu", options->gpu, "kernels as leaf frames; text order and folded values by GPU time");
    command->add_flag("--python", options->python, "include python_function frames (with_stack=True)");
    command->add_flag("--modules", options->modules, "include only nn.Module frames (with_modules=True)");
    auto* json = command->add_flag("--json", options->json, "nodes as JSON");
    command->add_flag("--folded", options->folded, "collapsed-stack lines")->excludes(json);
    command->add_option("--step", options->step, "only the step ProfilerStep#N")->type_name("N");
    command->add_option("--min-percent", options->minPercent, "text: leave out nodes below P % (default 0.5)")
        ->type_name("P")
        ->check(CLI::Range(0.0, 100.0));
    command->add_option("FILE", options->path, "trace (.json or .json.gz)")->type_name("")->required();
    command->callback([options] { exitWith(runTree(*options)); });
}

} // namespace ks::cli
