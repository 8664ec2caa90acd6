// kinetoscope-cli summarize: one compact summary per rank (core/analysis/ranksummary.h),
// computed where the traces are: one invocation per file under any scheduler, or spread over
// MPI processes (`mpirun -n K kinetoscope-cli summarize --mpi -o OUTDIR DIR`), where process 0
// then writes the job's cross-rank result beside the summaries.
#include "cli/command.h"
#include "cli/ranksofsummaries.h"
#include "cli/summarizetimings.h"
#include "cli/summarizeworker.h"
#include "core/analysis/ranksummary.h"
#include "core/loading/loader.h"

#ifdef KS_HAVE_MPI
#include <mpi.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include <unistd.h>

namespace ks::cli {

namespace {

struct SummarizeOptions {
    std::vector<std::string> paths;
    std::string outDir = ".";
    bool mpi = false;
    bool timings = false;
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

// What summarizing files gave: the files dealt with, the summaries written, the failures ("FILE:
// why") and the time its parts took. It travels as lines ("F file", "W path", "E message", "T
// phase wall cpu") from a summarizing child process and between MPI processes.
struct Outcome {
    std::vector<std::string> files, written, errors;
    SummarizeTimings timings;

    void add(const Outcome& other)
    {
        files.insert(files.end(), other.files.begin(), other.files.end());
        written.insert(written.end(), other.written.begin(), other.written.end());
        errors.insert(errors.end(), other.errors.begin(), other.errors.end());
        timings.add(other.timings);
    }
    std::string encode() const
    {
        std::string text;
        for (const auto& f : files)
            text += kFileDealtWith + f + '\n';
        for (const auto& w : written)
            text += "W " + w + '\n';
        for (const auto& e : errors)
            text += "E " + e + '\n';
        return text + timings.encode("T ");
    }
    static Outcome decode(const std::string& text)
    {
        Outcome o;
        for (std::size_t start = 0; start < text.size();) {
            auto end = text.find('\n', start);
            end = end == std::string::npos ? text.size() : end;
            if (end - start > 2) {
                std::string line = text.substr(start + 2, end - start - 2);
                if (text[start] == 'T')
                    o.timings.decodeLine(line);
                else {
                    auto& list = text[start] == 'W' ? o.written : text[start] == 'F' ? o.files : o.errors;
                    list.push_back(std::move(line));
                }
            }
            start = end + 1;
        }
        return o;
    }
};

// Writes `text` to a hidden temporary file beside `path` and renames it into place: a summarizer
// killed while writing leaves no summary cut short (which `ranks` would name as not valid JSON),
// only the hidden file.
bool writeWhole(const std::string& path, const std::string& text)
{
    const std::filesystem::path target(path);
    const auto temporary =
        target.parent_path() / ("." + target.filename().string() + "." + std::to_string(getpid()) + ".part");
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    std::error_code ec;
    if (out)
        std::filesystem::rename(temporary, target, ec);
    const bool written = out && !ec;
    if (!written)
        std::filesystem::remove(temporary, ec);
    return written;
}

// Summarizes one trace file into outDir.
Outcome summarizeFile(const std::string& file, const std::string& outDir, const LoadOptions& options)
{
    Outcome outcome;
    outcome.files.push_back(file);
    TimePoint clock = TimePoint::now();
    const LoadResult loaded = loadTraceFile(file, nullptr, options);
    clock = outcome.timings.add("files/load", clock);
    if (!loaded.ok()) {
        const std::string why = loaded.fatal ? loaded.fatal->located() : file + ": cannot be loaded";
        outcome.errors.push_back(why.starts_with(file) ? why : file + ": " + why);
        return outcome;
    }
    analysis::Workspace ws;
    const std::size_t members = ws.add(loaded.trace, file);
    const auto traceBytes = traceJsonBytes(file);
    for (const auto& member : ws.members()) {
        const auto summary = analysis::summarizeMember(member, traceBytes);
        const auto path = (std::filesystem::path(outDir) / summaryName(file, member, members)).string();
        const std::string text =
            analysis::rankSummaryToJson(summary).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        clock = outcome.timings.add("files/summary", clock);
        const bool wrote = writeWhole(path, text + '\n');
        clock = outcome.timings.add("files/write", clock);
        if (!wrote) {
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
        return {{file}, {}, {file + ": the summarizer failed: " + e.what()}, {}};
    } catch (...) {
        return {{file}, {}, {file + ": the summarizer failed"}, {}};
    }
}

// The files of `queue` summarized by a worker process (cli/summarizeworker.h), started now.
std::unique_ptr<SummarizeWorker> startWorker(FileQueue queue, const std::string& outDir, const LoadOptions& options)
{
    auto worker = std::make_unique<SummarizeWorker>(std::move(queue), [outDir, options](const std::string& file) {
        return summarizeCatching(file, outDir, options).encode();
    });
    worker->start();
    return worker;
}

int reportErrors(const std::vector<std::string>& errors)
{
    for (const auto& e : errors)
        std::fprintf(stderr, "kinetoscope-cli summarize: %s\n", e.c_str());
    return errors.empty() ? 0 : 1;
}

#ifdef KS_HAVE_MPI
// The files largest first (by size on disk): every process computes the same order, so no
// message is needed to share it.
std::vector<std::pair<std::uintmax_t, std::string>> largestFirst(const std::vector<std::string>& files)
{
    std::vector<std::pair<std::uintmax_t, std::string>> sized;
    for (const auto& file : files) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(file, ec);
        sized.emplace_back(ec ? 0 : size, file);
    }
    std::stable_sort(sized.begin(), sized.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    return sized;
}

// This process's share where files cannot be claimed one by one: largest first onto the least loaded process.
std::vector<std::string> shareBySize(const std::vector<std::pair<std::uintmax_t, std::string>>& sized, int rank,
                                     int processes)
{
    std::vector<std::uintmax_t> load(static_cast<std::size_t>(processes), 0);
    std::vector<std::string> mine;
    for (const auto& [size, file] : sized) {
        const auto least = std::min_element(load.begin(), load.end()) - load.begin();
        load[static_cast<std::size_t>(least)] += std::max<std::uintmax_t>(size, 1);
        if (least == rank)
            mine.push_back(file);
    }
    return mine;
}

std::vector<std::string> namesOf(const std::vector<std::pair<std::uintmax_t, std::string>>& sized)
{
    std::vector<std::string> names;
    for (const auto& entry : sized)
        names.push_back(entry.second);
    return names;
}

// This process's place in the job as the launcher tells it before MPI_Init (Open MPI's mpirun,
// Slurm's srun, MPICH's Hydra), so that it can start summarizing while MPI starts up; `job`
// (Open MPI, Slurm) names the job for the claims folder.
struct LaunchPlace {
    int rank = -1, size = 0, onHost = 0;
    std::string job;

    bool known() const { return rank >= 0 && rank < size; }
};

LaunchPlace launchPlace()
{
    const auto text = [](const char* name) {
        const char* value = std::getenv(name);
        return std::string(value ? value : "");
    };
    const auto number = [&](const char* name) {
        const std::string value = text(name);
        return value.empty() ? -1 : std::atoi(value.c_str());
    };
    if (number("OMPI_COMM_WORLD_RANK") >= 0)
        return {number("OMPI_COMM_WORLD_RANK"), number("OMPI_COMM_WORLD_SIZE"), number("OMPI_COMM_WORLD_LOCAL_SIZE"),
                text("OMPI_MCA_ess_base_jobid").empty() ? text("PMIX_NAMESPACE") : text("OMPI_MCA_ess_base_jobid")};
    if (number("SLURM_PROCID") >= 0 && number("SLURM_STEP_ID") >= 0)
        return {number("SLURM_PROCID"), number("SLURM_NTASKS"), -1, text("SLURM_JOB_ID") + "." + text("SLURM_STEP_ID")};
    if (number("PMI_RANK") >= 0)
        return {number("PMI_RANK"), number("PMI_SIZE"), number("MPI_LOCALNRANKS"), {}};
    return {};
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
// On one thread the loader reads 64 kB at a time, not 256 kB: a window and its parsed events
// (472 bytes each) then stay in the core's own L2 between batches instead of going through the
// L3 that every process shares. Per 1.8 MB rank (callgrind, a 2 MB last level): 81k cache
// misses to memory -> 34k, for 0.15 % more instructions (docs/performance.md).
LoadOptions loadOptionsFor(int processesOnHost)
{
    LoadOptions options;
    options.parseWorkers = std::max(1U, usableCores() / static_cast<unsigned>(std::max(processesOnHost, 1)));
    if (options.parseWorkers == 1) { // threads would only take turns on the one core
        options.assembleInParallel = false;
        options.readInBackgroundThread = false;
        options.chunkBytes = 64 << 10;
    }
    return options;
}

// Each process summarizes files in a worker process (cli/summarizeworker.h) started before
// MPI_Init where the launcher tells the process its place, so that MPI's start-up overlaps the
// work. With a job name the processes claim the files one by one, largest first (a process that
// finishes early takes more); else each takes its share by size. Process 0 gathers what was
// written and what failed (small text, not the summaries), and writes the job's cross-rank
// result from the summaries written, naming the failures and missing ranks.
int runWithMpi(const std::vector<std::string>& files, const std::string& outDir, bool timings)
{
    SummarizeTimings times;
    times.addStartUp();
    TimePoint clock = TimePoint::now();
    const auto sized = largestFirst(files);
    const LaunchPlace place = launchPlace();
    const std::string claims =
        place.job.empty() ? std::string() : (std::filesystem::path(outDir) / (".claims-" + place.job)).string();
    std::error_code ec;
    if (!claims.empty())
        std::filesystem::create_directories(claims, ec);
    const auto queueFor = [&](int rank, int size) {
        return claims.empty() || ec ? FileQueue(shareBySize(sized, rank, size)) : FileQueue(namesOf(sized), claims);
    };
    std::unique_ptr<SummarizeWorker> worker;
    if (place.known())
        worker = startWorker(queueFor(place.rank, place.size), outDir,
                             loadOptionsFor(place.onHost > 0 ? place.onHost : place.size));
    clock = times.add("plan", clock);
    MPI_Init(nullptr, nullptr);
    int rank = 0, size = 1, onHost = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
    MPI_Comm_size(host, &onHost);
    MPI_Comm_free(&host);
    if (!worker)
        worker = startWorker(queueFor(rank, size), outDir, loadOptionsFor(onHost));
    clock = times.add("MPI_Init", clock);
    Outcome mine = Outcome::decode(worker->finish());
    clock = times.add("waiting for the worker", clock);
    const std::string all = gatherOnZero(mine.encode(), rank, size);
    clock = times.add("gather", clock);
    int status = 0;
    if (rank == 0) {
        if (!claims.empty())
            std::filesystem::remove_all(claims, ec);
        Outcome job = Outcome::decode(all);
        const std::set<std::string> dealtWith(job.files.begin(), job.files.end());
        for (const auto& file : files) { // a worker killed between claiming a file and beginning it
            if (!dealtWith.contains(file))
                job.errors.push_back(file + ": not summarized: its summarizer died before beginning it");
        }
        status = reportErrors(job.errors);
        std::sort(job.written.begin(), job.written.end());
        const auto jobPath = (std::filesystem::path(outDir) / "job.ranks.json").string();
        std::ostringstream out;
        const JobOfSummaries result = writeRanksOfSummaries(job.written, outDir, out);
        const bool jobWritten = writeWhole(jobPath, out.str());
        std::printf("job: %zu file(s) on %d process(es), %zu failed; cross-rank result: %s\n%s\n", files.size(), size,
                    job.errors.size(), jobPath.c_str(), result.verdict.c_str());
        if (!result.missingRanks.empty())
            std::fprintf(stderr, "kinetoscope-cli summarize: %s\n", result.missingText.c_str());
        if (!jobWritten) {
            std::fprintf(stderr, "kinetoscope-cli summarize: %s: cannot be written\n", jobPath.c_str());
            status = 1;
        }
        if (!result.missingRanks.empty())
            status = 1;
        clock = times.add("job result", clock);
    }
    // No broadcast of process 0's status: the others would spin in MPI while process 0's readers
    // need the cores. Process 0 reports every failure and exits with the job's status (mpirun's).
    MPI_Finalize();
    if (timings) {
        times.add("MPI_Finalize", clock);
        times.add(mine.timings);
        std::fprintf(stderr, "%s",
                     times
                         .line("process " + std::to_string(rank) + "/" + std::to_string(size) + " ("
                               + std::to_string(mine.written.size()) + " summaries, "
                               + std::to_string(mine.errors.size()) + " failures)")
                         .c_str());
    }
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
        return std::max(runWithMpi(files, o.outDir, o.timings), errors.empty() ? 0 : 1);
#else
        std::fprintf(stderr,
                     "kinetoscope-cli summarize: --mpi: this build has no MPI support (install "
                     "libopenmpi-dev and rebuild), or run one summarize per file\n");
        return kUsageError;
#endif
    }
    SummarizeTimings times;
    times.addStartUp();
    const TimePoint start = TimePoint::now();
    const Outcome outcome = Outcome::decode(startWorker(FileQueue(files), o.outDir, LoadOptions{})->finish());
    errors.insert(errors.end(), outcome.errors.begin(), outcome.errors.end());
    if (o.timings) {
        times.add("files", start);
        times.add(outcome.timings);
        std::fprintf(stderr, "%s",
                     times
                         .line("process (" + std::to_string(outcome.written.size()) + " summaries, "
                               + std::to_string(outcome.errors.size()) + " failures)")
                         .c_str());
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
                    "With --mpi (under mpirun) the processes take the files largest first (one by one where the\n"
                    "launcher names the job, else each its share by size), and process 0\n"
                    "writes OUTDIR/job.ranks.json (as `ranks --json` of the summaries written, with the ranks\n"
                    "missing below the world size). The files are summarized in a child process: a file that\n"
                    "fails (unreadable, corrupt, or crashing the summarizer) is named and the others are\n"
                    "summarized (exit status 1).");
    command->add_option("-o,--output", options->outDir, "folder for the summaries (created; default .)")
        ->type_name("OUTDIR");
    command->add_flag("--mpi", options->mpi, "spread the files over the MPI processes (run under mpirun)");
    command->add_flag("--timings", options->timings,
                      "print each process's wall and CPU time per phase to stderr (start-up, MPI_Init, files: "
                      "load, summary, write; gather, job result), and its worker's counts (files, page faults "
                      "after its first file, context switches, peak RSS)");
    command->add_option("FILE", options->paths, "rank trace files or folders")->type_name("")->required();
    command->callback([options] { exitWith(runSummarize(*options)); });
}

} // namespace ks::cli
