#include "cli/command.h"

#include "core/loading/loader.h"
#include "core/writing/writer.h"

#include <cstdio>
#include <memory>

namespace ks::cli {

namespace {

constexpr const char* kUsage = "usage: kinetoscope-cli convert [--gzip] IN... OUT\n";

void printHelp()
{
    std::printf("%s\n"
                "Writes the trace IN to OUT with the writer of Save As: every event is kept (what the\n"
                "timeline draws in kineto's form, everything else verbatim). OUT ending in .gz is\n"
                "gzip (--gzip forces it), so .json <-> .json.gz converts. Several inputs are merged\n"
                "into one file, in the order given, with disjoint pids and correlation ids.\n"
                "Written files use integer pids (text pids become process names), correlation ids\n"
                "unique per process and ac2g flow ids equal to correlation ids, as kineto writes them.\n\n"
                "Exit status: 0 written, 1 an input could not be loaded or OUT not written, 2 usage.\n",
                kUsage);
}

void report(const std::vector<WriteLoss>& losses, const char* when)
{
    for (const auto& loss : losses)
        std::fprintf(stderr, "convert: warning: %s: %llu %s\n", when, static_cast<unsigned long long>(loss.count),
                     loss.what.c_str());
}

} // namespace

int runConvert(const std::vector<std::string>& args)
{
    TraceWriteOptions options;
    options.normalizeIds = true;
    std::vector<std::string> paths;
    for (const auto& a : args) {
        if (a == "--help" || a == "-h") {
            printHelp();
            return 0;
        }
        if (a == "--gzip") {
            options.compression = TraceWriteOptions::Compression::Gzip;
        } else if (a.size() > 1 && a[0] == '-') {
            std::fprintf(stderr, "convert: unknown option '%s'\n%s", a.c_str(), kUsage);
            return 2;
        } else {
            paths.push_back(a);
        }
    }
    if (paths.size() < 2) {
        std::fprintf(stderr, "%s", kUsage);
        return 2;
    }
    const std::string out = paths.back();
    paths.pop_back();

    std::vector<std::shared_ptr<const Trace>> traces;
    std::vector<const Trace*> inputs;
    for (const auto& path : paths) {
        auto loaded = loadTraceFile(path);
        if (!loaded.ok()) {
            std::fprintf(stderr, "error: %s\n", loaded.fatal ? loaded.fatal->located().c_str() : path.c_str());
            return 1;
        }
        report(unwritableParts(*loaded.trace), path.c_str());
        traces.push_back(loaded.trace);
        inputs.push_back(loaded.trace.get());
    }
    const auto result = writeMergedTraceFile(inputs, out, options);
    if (!result.ok) {
        std::fprintf(stderr, "error: %s\n", result.error.c_str());
        return 1;
    }
    report(result.lost, "left out");
    for (const auto& note : result.notes)
        std::fprintf(stderr, "convert: note: %s\n", note.c_str());
    std::fprintf(stderr, "convert: wrote %s (%llu events)\n", out.c_str(),
                 static_cast<unsigned long long>(result.eventsWritten));
    return 0;
}

} // namespace ks::cli
