#include "cli/command.h"

#include "core/loading/loader.h"
#include "core/stats/traceinfo.h"

#include <cstdio>
#include <iostream>

namespace ks::cli {

int runInfo(const std::vector<std::string>& args)
{
    bool asJson = false;
    std::string path;
    for (const auto& a : args) {
        if (a == "--json") {
            asJson = true;
        } else if (a == "--help" || a == "-h") {
            std::puts("usage: kinetoscope-cli info [--json] FILE\n\n"
                      "Prints devices, processes, threads/streams with event counts, the time span,\n"
                      "the number of traceEvents entries per \"<ph>/<cat>\", flows per category and warnings.");
            return 0;
        } else if (path.empty()) {
            path = a;
        } else {
            std::fprintf(stderr, "info: unexpected argument '%s'\n", a.c_str());
            return 2;
        }
    }
    if (path.empty()) {
        std::fprintf(stderr, "usage: kinetoscope-cli info [--json] FILE\n");
        return 2;
    }
    const auto result = loadTraceFile(path);
    if (!result.ok()) {
        std::fprintf(stderr, "error: %s\n", result.fatal ? result.fatal->located().c_str() : "load failed");
        return 1;
    }
    if (asJson)
        std::cout << traceInfoJson(*result.trace, path).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else
        std::cout << traceInfoText(*result.trace, path);
    return 0;
}

} // namespace ks::cli
