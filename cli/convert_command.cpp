// kinetoscope-cli convert: the writer of Save As from the command line.
#include "cli/command.h"

#include "core/loading/loader.h"
#include "core/writing/writer.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace ks::cli {

namespace {

struct ConvertOptions {
    std::vector<std::string> paths; // inputs, then the output
    bool gzip = false;
};

void report(const std::vector<WriteLoss>& losses, const std::string& when)
{
    for (const auto& loss : losses)
        std::fprintf(stderr, "convert: warning: %s: %llu %s\n", when.c_str(),
                     static_cast<unsigned long long>(loss.count), loss.what.c_str());
}

int runConvert(const ConvertOptions& options)
{
    if (options.paths.size() < 2) {
        std::fprintf(stderr,
                     "convert: needs at least one input and the output (IN... OUT)\n"
                     "Run 'kinetoscope-cli convert --help' for usage.\n");
        return kUsageError;
    }
    TraceWriteOptions writeOptions;
    writeOptions.normalizeIds = true;
    if (options.gzip)
        writeOptions.compression = TraceWriteOptions::Compression::Gzip;
    const std::string& out = options.paths.back();
    std::vector<std::shared_ptr<const Trace>> traces;
    std::vector<const Trace*> inputs;
    for (std::size_t i = 0; i + 1 < options.paths.size(); ++i) {
        const std::string& path = options.paths[i];
        auto loaded = loadTraceFile(path);
        if (!loaded.ok()) {
            std::fprintf(stderr, "error: %s\n", loaded.fatal ? loaded.fatal->located().c_str() : path.c_str());
            return 1;
        }
        report(unwritableParts(*loaded.trace), path);
        traces.push_back(loaded.trace);
        inputs.push_back(loaded.trace.get());
    }
    const auto result = writeMergedTraceFile(inputs, out, writeOptions);
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

} // namespace

void addConvertCommand(CLI::App& app)
{
    auto options = std::make_shared<ConvertOptions>();
    auto* command =
        app.add_subcommand("convert", "write traces again (.json <-> .json.gz), several merged into one file");
    command->footer("Writes IN to OUT with the writer of Save As: every event is kept (what the timeline\n"
                    "draws in kineto's form, everything else verbatim). OUT ending in .gz is gzip, so\n"
                    ".json <-> .json.gz converts. Several inputs are merged into one file, in the order\n"
                    "given. Written files use integer pids (text pids become process names), correlation\n"
                    "ids unique per process and ac2g flow ids equal to them, as kineto writes them.\n"
                    "Exit status: 0 written, 1 an input could not be loaded or OUT not written, 2 usage.");
    command->add_flag("--gzip", options->gzip, "write gzip whatever OUT's name");
    // One word: newer CLI11 releases refuse positional names with spaces ("IN... OUT").
    command->add_option("PATHS", options->paths, "input traces (IN...), then the output file (OUT)")
        ->type_name("")
        ->required();
    command->callback([options] { exitWith(runConvert(*options)); });
}

} // namespace ks::cli
