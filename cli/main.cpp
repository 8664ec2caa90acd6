// kinetoscope-cli: Qt-free command line for inspecting, summarising and collecting traces.
#include "cli/command.h"

#include <cstdio>
#include <cstring>
#include <exception>

namespace {

const ks::cli::Command kCommands[] = {
    {"info", "devices, processes, tracks, event counts and warnings of a trace", ks::cli::runInfo},
    {"gpu", "GPU utilization, SM efficiency, occupancy, step breakdown, nvprof summary", ks::cli::runGpu},
    {"ops", "operator table like torch's key_averages().table()", ks::cli::runOps},
    {"diff", "compare two traces: step time, categories, operators, kernels, copies", ks::cli::runDiff},
    {"ranks", "ranks of a distributed run: collectives across ranks, waits, the straggler", ks::cli::runRanks},
    {"insights", "what to fix: findings with time per step, evidence and advice", ks::cli::runInsights},
    {"collect", "run a CUDA program under the CUPTI collector and write its trace", ks::cli::runCollect},
};

void printUsage(std::FILE* out)
{
    std::fprintf(out, "usage: kinetoscope-cli <command> [options] [args]\n\ncommands:\n");
    for (const auto& c : kCommands)
        std::fprintf(out, "  %-8s %s\n", c.name, c.summary);
    std::fprintf(out, "\nRun 'kinetoscope-cli <command> --help' for a command's options.\n");
}

int runCli(int argc, char** argv)
{
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        printUsage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (const auto& c : kCommands) {
        if (!std::strcmp(argv[1], c.name))
            return c.run(std::vector<std::string>(argv + 2, argv + argc));
    }
    std::fprintf(stderr, "kinetoscope-cli: unknown command '%s'\n\n", argv[1]);
    printUsage(stderr);
    return 2;
}

} // namespace

// Nothing ends in std::terminate: whatever a command failed to handle is an error, exit 1.
int main(int argc, char** argv)
{
    try {
        return runCli(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "error: unexpected failure\n");
    }
    return 1;
}
