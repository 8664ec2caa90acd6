// kinetoscope-cli info: what a trace holds, as text or JSON.
#include "cli/command.h"

#include "core/loading/loader.h"
#include "core/stats/traceinfo.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace ks::cli {

namespace {

struct InfoOptions {
    std::string path;
    bool json = false;
};

int runInfo(const InfoOptions& options)
{
    const auto result = loadTraceFile(options.path);
    if (!result.ok()) {
        std::fprintf(stderr, "error: %s\n", result.fatal ? result.fatal->located().c_str() : "load failed");
        return 1;
    }
    if (options.json)
        std::cout
            << traceInfoJson(*result.trace, options.path).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
            << "\n";
    else
        std::cout << traceInfoText(*result.trace, options.path);
    return 0;
}

} // namespace

void addInfoCommand(CLI::App& app)
{
    auto options = std::make_shared<InfoOptions>();
    auto* command = app.add_subcommand("info", "devices, processes, tracks, event counts and warnings of a trace");
    command->footer("Prints devices, processes, threads/streams with event counts, the time span, the number of\n"
                    "traceEvents entries per \"<ph>/<cat>\", flows per category and warnings.");
    command->add_flag("--json", options->json, "machine-readable output");
    command->add_option("FILE", options->path, "trace (.json or .json.gz)")->type_name("")->required();
    command->callback([options] { exitWith(runInfo(*options)); });
}

} // namespace ks::cli
