// kinetoscope-cli: Qt-free command line for inspecting, summarising and collecting traces.
#include "cli/command.h"
#include "core/version.h"

#include <cstdio>
#include <exception>

namespace {

// "kinetoscope-cli ops: The following argument was not expected: --jsn" and where to look.
std::string failureMessage(const CLI::App* app, const CLI::Error& error)
{
    std::string command = app->get_name();
    std::string what = error.what();
    if (const auto used = app->get_subcommands(); !used.empty())
        command += " " + used.front()->get_name();
    else if (const auto rest = app->remaining(); !rest.empty())
        what = "unknown command or option '" + rest.front() + "'";
    return command + ": " + what + "\nRun '" + command + " --help' for usage.\n";
}

int runCli(int argc, char** argv)
{
    CLI::App app("Inspect, summarise and collect PyTorch profiler / Chrome trace files.", "kinetoscope-cli");
    app.set_version_flag("--version", std::string("kinetoscope-cli ") + ks::kVersion);
    app.require_subcommand(1);
    app.failure_message(failureMessage);
    ks::cli::addInfoCommand(app);
    ks::cli::addGpuCommand(app);
    ks::cli::addOpsCommand(app);
    ks::cli::addCriticalPathCommand(app);
    ks::cli::addDiffCommand(app);
    ks::cli::addRanksCommand(app);
    ks::cli::addSummarizeCommand(app);
    ks::cli::addTreeCommand(app);
    ks::cli::addInsightsCommand(app);
#ifdef KS_HAVE_QUERY
    ks::cli::addQueryCommand(app);
#endif
    ks::cli::addMemoryCommand(app);
    ks::cli::addConvertCommand(app);
    ks::cli::addCollectCommand(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::RuntimeError& e) { // a command's own exit status (exitWith)
        return e.get_exit_code();
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : ks::cli::kUsageError; // --help and --version exit with 0
    }
    return 0;
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
