// kinetoscope-cli summarize: one compact summary per rank (core/analysis/ranksummary.h),
// computed where the traces are: one invocation per file under any scheduler, or spread over
// MPI processes (`mpirun -n K kinetoscope-cli summarize --mpi -o OUTDIR DIR`), where process 0
// then writes the job's cross-rank result beside the summaries.
#include "cli/command.h"
#include "cli/ranksofsummaries.h"
#include "core/analysis/ranksummary.h"
#include "core/loading/loader.h"

#ifdef KS_HAVE_MPI
#include <mpi.h>
#endif

#if defined(__unix__) || defined(__APPLE__)
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>
#define KS_ISOLATE_FILES 1
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
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

// The size of the trace's JSON: a gzip file's trailer gives it (modulo 4 GiB: then at least the file's size).
std::uint64_t traceJsonBytes(const std::string& file)
{
    std::error_code ec;
    const std::uint64_t size = std::filesystem::file_size(file, ec);
    if (ec)
        return 0;
    std::ifstream in(file, std::ios::binary);
    unsigned char head[2] = {0, 0}, tail[4] = {0, 0, 0, 0};
    in.read(reinterpret_cast<char*>(head), 2);
    if (!in || head[0] != 0x1f || head[1] != 0x8b || size < 18)
        return size;
    in.seekg(-4, std::ios::end);
    in.read(reinterpret_cast<char*>(tail), 4);
    const std::uint64_t inflated = std::uint64_t(tail[0]) | std::uint64_t(tail[1]) << 8 | std::uint64_t(tail[2]) << 16
        | std::uint64_t(tail[3]) << 24;
    return in ? std::max(inflated, size) : size;
}

// What summarizing files gave: the summaries written and the failures ("FILE: why"). It travels
// as lines ("W path", "E message") from a summarizing child process and between MPI processes.
struct Outcome {
    std::vector<std::string> written, errors;

    void add(const Outcome& other)
    {
        written.insert(written.end(), other.written.begin(), other.written.end());
        errors.insert(errors.end(), other.errors.begin(), other.errors.end());
    }
    std::string encode() const
    {
        std::string text;
        for (const auto& w : written)
            text += "W " + w + '\n';
        for (const auto& e : errors)
            text += "E " + e + '\n';
        return text;
    }
    static Outcome decode(const std::string& text)
    {
        Outcome o;
        for (std::size_t start = 0; start < text.size();) {
            auto end = text.find('\n', start);
            end = end == std::string::npos ? text.size() : end;
            if (end - start > 2)
                (text[start] == 'W' ? o.written : o.errors).push_back(text.substr(start + 2, end - start - 2));
            start = end + 1;
        }
        return o;
    }
};

// Summarizes one trace file into outDir.
Outcome summarizeFile(const std::string& file, const std::string& outDir, const LoadOptions& options)
{
    const LoadResult loaded = loadTraceFile(file, nullptr, options);
    if (!loaded.ok()) {
        const std::string why = loaded.fatal ? loaded.fatal->located() : file + ": cannot be loaded";
        return {{}, {why.starts_with(file) ? why : file + ": " + why}};
    }
    analysis::Workspace ws;
    const std::size_t members = ws.add(loaded.trace, file);
    const auto traceBytes = traceJsonBytes(file);
    Outcome outcome;
    for (const auto& member : ws.members()) {
        const auto summary = analysis::summarizeMember(member, traceBytes);
        const auto path = (std::filesystem::path(outDir) / summaryName(file, member, members)).string();
        const std::string text =
            analysis::rankSummaryToJson(summary).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << text << '\n';
        out.close();
        if (!out) {
            outcome.errors.push_back(path + ": cannot be written");
            continue;
        }
        outcome.written.push_back(path);
        std::printf("%s: %s, %zu collectives, %.1f kB\n", path.c_str(), member.identity.label().c_str(),
                    summary.collectives.size(), double(text.size()) / 1e3);
    }
    return outcome;
}

Outcome summarizeCatching(const std::string& file, const std::string& outDir, const LoadOptions& options)
{
    try {
        return summarizeFile(file, outDir, options);
    } catch (const std::exception& e) {
        return {{}, {file + ": the summarizer failed: " + e.what()}};
    } catch (...) {
        return {{}, {file + ": the summarizer failed"}};
    }
}

// Summarizes the file in a child process where the system has fork(): a trace that crashes the
// summarizer (or makes it run out of memory) then fails alone, named with the signal, and the
// process (an MPI rank) goes on with its other files and the job's gather.
Outcome summarizeIsolated(const std::string& file, const std::string& outDir, const LoadOptions& options)
{
#ifdef KS_ISOLATE_FILES
    int pipeEnds[2];
    if (pipe(pipeEnds) != 0)
        return summarizeCatching(file, outDir, options);
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t child = fork();
    if (child < 0) {
        close(pipeEnds[0]);
        close(pipeEnds[1]);
        return summarizeCatching(file, outDir, options);
    }
    if (child == 0) { // touches no MPI state; _exit skips the parent's atexit handlers (MPI's)
        close(pipeEnds[0]);
        const std::string text = summarizeCatching(file, outDir, options).encode();
        for (std::size_t done = 0; done < text.size();) {
            const auto n = write(pipeEnds[1], text.data() + done, text.size() - done);
            if (n <= 0)
                break;
            done += static_cast<std::size_t>(n);
        }
        std::fflush(stdout);
        _exit(0);
    }
    close(pipeEnds[1]);
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = read(pipeEnds[0], buffer, sizeof buffer)) != 0;) {
        if (n > 0)
            text.append(buffer, static_cast<std::size_t>(n));
        else if (errno != EINTR)
            break;
    }
    close(pipeEnds[0]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) { }
    Outcome outcome = Outcome::decode(text);
    if (WIFSIGNALED(status))
        outcome.errors.push_back(file + ": the summarizer died of signal " + std::to_string(WTERMSIG(status)) + " ("
                                 + strsignal(WTERMSIG(status)) + ")");
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        outcome.errors.push_back(file + ": the summarizer exited with status " + std::to_string(WEXITSTATUS(status)));
    return outcome;
#else
    return summarizeCatching(file, outDir, options);
#endif
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

// Every process's text, concatenated in process order, on process 0 (empty elsewhere).
std::string gatherOnZero(const std::string& mine, int rank, int size)
{
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(static_cast<std::size_t>(size), 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> displacements(static_cast<std::size_t>(size), 0);
    for (std::size_t p = 1; p < displacements.size(); ++p)
        displacements[p] = displacements[p - 1] + lengths[p - 1];
    std::string all(rank == 0 ? static_cast<std::size_t>(displacements.back() + lengths.back()) : 0, '\0');
    MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), displacements.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    return all;
}

// With one process per core, each loads on one thread; with fewer, they share the host's cores.
LoadOptions loadOptionsFor(int processesOnHost)
{
    LoadOptions options;
    options.parseWorkers = std::max(1U, usableCores() / static_cast<unsigned>(std::max(processesOnHost, 1)));
    if (processesOnHost > 1 && options.parseWorkers == 1) {
        options.assembleInParallel = false;
        options.readInBackgroundThread = false;
    }
    return options;
}

// Each process summarizes its share, each file in a child process (a file that crashes the
// summarizer fails alone); process 0 gathers what was written and what failed, and writes the
// job's cross-rank result from the summaries written, naming the failures and missing ranks.
int runWithMpi(const std::vector<std::string>& files, const std::string& outDir)
{
    MPI_Init(nullptr, nullptr);
    int rank = 0, size = 1, onHost = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
    MPI_Comm_size(host, &onHost);
    MPI_Comm_free(&host);
    const LoadOptions options = loadOptionsFor(onHost);
    const auto owner = planBySize(files, size);
    Outcome mine;
    for (std::size_t f = 0; f < files.size(); ++f) {
        if (owner[f] == static_cast<std::size_t>(rank))
            mine.add(summarizeIsolated(files[f], outDir, options));
    }
    const std::string all = gatherOnZero(mine.encode(), rank, size);
    int status = 0;
    if (rank == 0) {
        Outcome job = Outcome::decode(all);
        status = reportErrors(job.errors);
        std::sort(job.written.begin(), job.written.end());
        const auto jobPath = (std::filesystem::path(outDir) / "job.ranks.json").string();
        std::ofstream out(jobPath, std::ios::binary | std::ios::trunc);
        const JobOfSummaries result = writeRanksOfSummaries(job.written, outDir, out);
        out.close();
        std::printf("job: %zu file(s) on %d process(es), %zu failed; cross-rank result: %s\n%s\n", files.size(), size,
                    job.errors.size(), jobPath.c_str(), result.verdict.c_str());
        if (!result.missingRanks.empty())
            std::fprintf(stderr, "kinetoscope-cli summarize: %s\n", result.missingText.c_str());
        if (!out || !result.missingRanks.empty())
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
    Outcome outcome;
    for (const auto& file : files)
        outcome.add(summarizeIsolated(file, o.outDir, LoadOptions{}));
    errors.insert(errors.end(), outcome.errors.begin(), outcome.errors.end());
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
                    "writes OUTDIR/job.ranks.json (as `ranks --json` of the summaries written, with the ranks\n"
                    "missing below the world size). Each file is summarized in a child process: a file that fails\n"
                    "(unreadable, corrupt, or crashing the summarizer) is named and the others are summarized\n"
                    "(exit status 1).");
    command->add_option("-o,--output", options->outDir, "folder for the summaries (created; default .)")
        ->type_name("OUTDIR");
    command->add_flag("--mpi", options->mpi, "spread the files over the MPI processes (run under mpirun)");
    command->add_option("FILE", options->paths, "rank trace files or folders")->type_name("")->required();
    command->callback([options] { exitWith(runSummarize(*options)); });
}

} // namespace ks::cli
