#pragma once
#include <string>
#include <vector>

namespace ks::cli {

// A subcommand gets its own arguments (after the subcommand name) and returns the exit code.
using CommandFunction = int (*)(const std::vector<std::string>& args);

struct Command {
    const char* name;
    const char* summary;
    CommandFunction run;
};

int runInfo(const std::vector<std::string>& args);
int runCollect(const std::vector<std::string>& args);
int runGpu(const std::vector<std::string>& args);
int runOps(const std::vector<std::string>& args);
int runDiff(const std::vector<std::string>& args);
int runRanks(const std::vector<std::string>& args);
int runInsights(const std::vector<std::string>& args);

} // namespace ks::cli
