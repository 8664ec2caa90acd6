// kinetoscope-cli summarize: one compact summary per rank (core/analysis/ranksummary.h),
// computed where the traces are: one invocation per file under any scheduler, or spread over
// MPI processes (`mpirun -n K kinetoscope-cli summarize --mpi -o OUTDIR DIR`), where process 0
// then writes the job's cross-rank result beside the summaries.
#include "cli/command.h"
#include "core/analysis/ranksummary.h"
#include "core/loading/loader.h"

#ifdef KS_HAVE_MPI
#include <mpi.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>

namespace ks::cli {

namespace {

struct SummarizeOptions {
    std::vector<std::string> paths;
    std::string outDir = ".";
    bool mpi = false;
};

// "run.pt.trace.json.gz" -> "run"; a member of a merged file adds ".rankN".
std::string summaryName(const std::string& file, const analysis::WorkspaceMember& member, std::size_t members)
{
    std::string stem = std::filesystem::path(file).filename().string();
    for (const char* ext : {".gz", ".json", ".pt.trace"}) {
        if (stem.ends_with(ext))
            stem.resize(stem.size() - std::strlen(ext));
    }
    if (members > 1)
        stem += member.identity.rank >= 0 ? ".rank" + std::to_string(member.identity.rank) : ".part";
    return stem + analysis::kRankSummarySuffix;
}

// Summarizes one trace file into outDir; returns the errors ("FILE: why"), empty on success.
std::vector<std::string> summarizeFile(const std::string& file, const std::string& outDir)
{
    const LoadResult loaded = loadTraceFile(file);
    if (!loaded.ok())
        return {file + ": " + (loaded.fatal ? loaded.fatal->located() : std::string("cannot be loaded"))};
    analysis::Workspace ws;
    const std::size_t members = ws.add(loaded.trace, file);
    std::error_code ec;
    const auto traceBytes = std::filesystem::file_size(file, ec);
    std::vector<std::string> errors;
    for (const auto& member : ws.members()) {
        const auto summary = analysis::summarizeMember(member, ec ? 0 : traceBytes);
        const auto path = (std::filesystem::path(outDir) / summaryName(file, member, members)).string();
        const std::string text =
            analysis::rankSummaryToJson(summary).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << text << '\n';
        out.close();
        if (!out) {
            errors.push_back(path + ": cannot be written");
            continue;
        }
        std::printf("%s: %s, %zu collectives, %.1f kB\n", path.c_str(), member.identity.label().c_str(),
                    summary.collectives.size(), double(text.size()) / 1e3);
    }
    return errors;
}

int reportErrors(const std::vector<std::string>& errors)
{
    for (const auto& e : errors)
        std::fprintf(stderr, "kinetoscope-cli summarize: %s\n", e.c_str());
    return errors.empty() ? 0 : 1;
}

#ifdef KS_HAVE_MPI
// Files spread over `processes` by size, largest first onto the least loaded process: every
// process computes the same plan, so no message is needed to share it.
std::vector<std::size_t> planBySize(const std::vector<std::string>& files, int processes)
{
    std::vector<std::uintmax_t> sizes(files.size(), 0);
    for (std::size_t i = 0; i < files.size(); ++i) {
        std::error_code ec;
        sizes[i] = std::filesystem::file_size(files[i], ec);
    }
    std::vector<std::size_t> order(files.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
    std::vector<std::uintmax_t> load(static_cast<std::size_t>(processes), 0);
    std::vector<std::size_t> owner(files.size(), 0);
    for (const std::size_t f : order) {
        const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        owner[f] = least;
        load[least] += std::max<std::uintmax_t>(sizes[f], 1);
    }
    return owner;
}

// Process 0 gathers every process's errors (as text) and writes the job's result.
int runWithMpi(const std::vector<std::string>& files, const std::string& outDir)
{
    MPI_Init(nullptr, nullptr);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const auto owner = planBySize(files, size);
    std::string myErrors;
    for (std::size_t f = 0; f < files.size(); ++f) {
        if (owner[f] != static_cast<std::size_t>(rank))
            continue;
        for (const auto& e : summarizeFile(files[f], outDir))
            myErrors += e + '\n';
    }
    const int length = static_cast<int>(myErrors.size());
    std::vector<int> lengths(static_cast<std::size_t>(size), 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> displacements(static_cast<std::size_t>(size), 0);
    for (int p = 1; p < size; ++p)
        displacements[p] = displacements[p - 1] + lengths[p - 1];
    std::string all(rank == 0 ? static_cast<std::size_t>(displacements.back() + lengths.back()) : 0, '\0');
    MPI_Gatherv(myErrors.data(), length, MPI_CHAR, all.data(), lengths.data(), displacements.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    int status = 0;
    if (rank == 0) {
        std::vector<std::string> errors;
        for (std::size_t start = 0; start < all.size();) {
            const auto end = all.find('\n', start);
            errors.push_back(all.substr(start, end - start));
            start = end + 1;
        }
        status = reportErrors(errors);
        const auto jobPath = (std::filesystem::path(outDir) / "job.ranks.json").string();
        std::ofstream out(jobPath, std::ios::binary | std::ios::trunc);
        const std::string verdict = writeRanksOfSummaries(outDir, out);
        out.close();
        std::printf("job: %zu file(s) on %d process(es); cross-rank result: %s\n%s\n", files.size(), size,
                    jobPath.c_str(), verdict.c_str());
        if (!out)
            status = 1;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
#endif

int runSummarize(const SummarizeOptions& o)
{
    std::vector<analysis::FileError> pathErrors;
    const auto files = analysis::expandTracePaths(o.paths, pathErrors);
    std::vector<std::string> errors;
    for (const auto& e : pathErrors)
        errors.push_back(e.file + ": " + e.message);
    std::error_code ec;
    std::filesystem::create_directories(o.outDir, ec);
    if (ec) {
        std::fprintf(stderr, "kinetoscope-cli summarize: cannot create %s: %s\n", o.outDir.c_str(),
                     ec.message().c_str());
        return 1;
    }
    if (o.mpi) {
#ifdef KS_HAVE_MPI
        reportErrors(errors);
        return std::max(runWithMpi(files, o.outDir), errors.empty() ? 0 : 1);
#else
        std::fprintf(stderr,
                     "kinetoscope-cli summarize: --mpi: this build has no MPI support (install "
                     "libopenmpi-dev and rebuild), or run one summarize per file\n");
        return kUsageError;
#endif
    }
    for (const auto& file : files) {
        auto fileErrors = summarizeFile(file, o.outDir);
        errors.insert(errors.end(), fileErrors.begin(), fileErrors.end());
    }
    return reportErrors(errors);
}

} // namespace

void addSummarizeCommand(CLI::App& app)
{
    auto options = std::make_shared<SummarizeOptions>();
    auto* command = app.add_subcommand("summarize", "one compact summary per rank, for jobs too large to load at once");
    command->footer("Writes OUTDIR/<trace>.summary.json per rank: identity, steps, the rank's totals, its NCCL\n"
                    "collectives in order with their sizes, and for the job view the step breakdown, insights,\n"
                    "top operators and kernels (docs/rank-summaries.md). `kinetoscope-cli ranks OUTDIR` then\n"
                    "matches the collectives and names the straggler from the summaries alone.\n"
                    "With --mpi (under mpirun) the files are spread over the processes by size, and process 0\n"
                    "writes OUTDIR/job.ranks.json (as `ranks --json OUTDIR`). A file that fails is named; the\n"
                    "others are summarized (exit status 1).");
    command->add_option("-o,--output", options->outDir, "folder for the summaries (created; default .)")
        ->type_name("OUTDIR");
    command->add_flag("--mpi", options->mpi, "spread the files over the MPI processes (run under mpirun)");
    command->add_option("FILE", options->paths, "rank trace files or folders")->type_name("")->required();
    command->callback([options] { exitWith(runSummarize(*options)); });
}

} // namespace ks::cli
