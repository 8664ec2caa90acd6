// Load benchmark (issues 2 and 15): loads a ~745k-event kineto trace (big.pt.trace.json.gz
// tiled) and prints load time, MB/s, events/s, peak RSS, model bytes per event by part, and
// Python's json.load on the same file, measured in the same run.
//   bench_load [FILE]          FILE defaults to the tiled trace, made on first use.
//   bench_load FILE FILE...    each file in a child process of its own (its own peak RSS),
//                              against the single-threaded loader in the same child, then
//                              MB/s of the largest .json against the smallest: cost is linear
//                              when the ratio is ~1 (make the files with bench_tile).
#include "bench/measure.h"
#include "bench/tiler/tracetiler.h"
#include "core/loading/loader.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using ks::bench::peakRssMb;

double pythonJsonLoadSeconds(const std::string& path)
{
    const std::string cmd = "python3 -c \"import json,sys,time; t=time.perf_counter(); json.load(open(sys.argv[1])); "
                            "print(time.perf_counter()-t)\" '"
        + path + "' 2>/dev/null";
    std::FILE* p = popen(cmd.c_str(), "r");
    if (!p)
        return -1;
    double seconds = -1;
    if (std::fscanf(p, "%lf", &seconds) != 1)
        seconds = -1;
    pclose(p);
    return seconds;
}

void gzipCopy(const std::string& from, const std::string& to)
{
    std::FILE* in = std::fopen(from.c_str(), "rb");
    gzFile out = gzopen(to.c_str(), "wb6");
    std::vector<char> buf(1 << 20);
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), in)) > 0)
        gzwrite(out, buf.data(), static_cast<unsigned>(n));
    gzclose(out);
    std::fclose(in);
}

struct Run {
    double seconds;
    std::uint64_t events;
    ks::Trace::MemoryUse memory;
};

// The parallel loader (the default: read-ahead, chunks parsed on a worker per core, assembly on
// a thread of its own), or everything on the calling thread, one entry at a time: the reference
// for the speed-up on N cores (run under `taskset -c 0,1` for 2 cores).
enum class Threads { Parallel, AssembleInLine, Single };

Run timeLoad(const std::string& path, Threads threads = Threads::Parallel)
{
    ks::LoadOptions options;
    options.assembleInParallel = threads == Threads::Parallel;
    options.readInBackgroundThread = threads != Threads::Single;
    options.parseInChunks = threads != Threads::Single;
    const auto t0 = ks::bench::Clock::now();
    const auto result = ks::loadTraceFile(path, nullptr, options);
    const double s = ks::bench::secondsSince(t0);
    if (!result.ok()) {
        std::fprintf(stderr, "load failed: %s\n", result.fatal ? result.fatal->located().c_str() : "?");
        std::exit(1);
    }
    return {s, result.trace->traceEventCount(), result.trace->memoryUse()};
}

void printMemoryUse(const Run& run)
{
    const auto& m = run.memory;
    const double n = static_cast<double>(run.events);
    std::printf("model memory: %.1f bytes per event (target <= 100): slices %.1f, text offsets %.1f, names %.1f, "
                "flows %.1f, lanes %.2f, instants %.1f, counters %.1f, GPU ops %.1f, kept %.1f; draw caches: none\n",
                double(m.total()) / n, double(m.slices) / n, double(m.textOffsets) / n, double(m.strings) / n,
                double(m.flows) / n, double(m.lanes) / n, double(m.instants) / n, double(m.counters) / n,
                double(m.gpuOps) / n, double(m.kept) / n);
}

// JSON bytes of a file: its own size, or for FILE.json.gz the size of FILE.json next to it
// (so that MB/s and RSS / file compare .json and .json.gz alike), else the compressed size.
double jsonMb(const std::string& path)
{
    std::string json = path;
    if (json.size() > 3 && json.ends_with(".gz") && std::filesystem::exists(json.substr(0, json.size() - 3)))
        json.resize(json.size() - 3);
    return static_cast<double>(std::filesystem::file_size(json)) / 1e6;
}

struct SizeResult {
    double mbPerSecond = -1, speedUp = 0, rssRatio = 0;
};

// Loads per file and loader. The same number for every size: the best of three small loads
// against one large one (the first touch of all its memory included) read as a cost growing with size.
constexpr int kRuns = 3;

// Loads `path` in a child process, alternating the parallel and the single-threaded loader
// (best of kRuns each), and returns the parallel MB/s, the speed-up and peak RSS / file.
SizeResult loadInChild(const std::string& path)
{
    int fds[2];
    if (pipe(fds) != 0)
        return {};
    const double fileMb = jsonMb(path);
    std::fflush(stdout);
    const double timedRss = ks::bench::peakRssMbInChild([&] {
        close(fds[0]);
        Run best{1e30, 0, {}};
        double bestSingle = 1e30;
        for (int i = 0; i < kRuns; ++i) {
            bestSingle = std::min(bestSingle, timeLoad(path, Threads::Single).seconds);
            const Run run = timeLoad(path);
            if (run.seconds < best.seconds)
                best = run;
        }
        SizeResult r;
        r.mbPerSecond = fileMb / best.seconds;
        r.speedUp = bestSingle / best.seconds;
        std::printf("%s: %.1f MB, %llu events: %.3f s (best of %d)   %.0f MB/s   %.2f M events/s\n", path.c_str(),
                    fileMb, static_cast<unsigned long long>(best.events), best.seconds, kRuns, r.mbPerSecond,
                    static_cast<double>(best.events) / best.seconds / 1e6);
        std::printf("  single-threaded loader, same run: %.3f s   %.0f MB/s: the parallel loader is %.2fx faster\n",
                    bestSingle, fileMb / bestSingle, r.speedUp);
        printMemoryUse(best);
        std::fflush(stdout);
        return write(fds[1], &r, sizeof r) == sizeof r;
    });
    close(fds[1]);
    SizeResult r;
    if (read(fds[0], &r, sizeof r) != sizeof r)
        r = {};
    close(fds[0]);
    // Peak RSS of one load by the parallel loader, in a fresh process of its own.
    const double peak = ks::bench::peakRssMbInChild([&] { return timeLoad(path).events > 0; });
    if (timedRss < 0 || peak < 0)
        return {};
    r.rssRatio = peak / fileMb;
    std::printf("  peak RSS of one load: %.1f MB = %.2f x the JSON (target <= 0.35)\n", peak, r.rssRatio);
    return r;
}

int compareSizes(const std::vector<std::string>& paths)
{
    std::vector<SizeResult> results;
    for (const auto& path : paths) {
        results.push_back(loadInChild(path));
        if (results.back().mbPerSecond <= 0)
            return std::fprintf(stderr, "could not load %s\n", path.c_str()), 1;
    }
    std::printf("\n| file | MB/s | x single-threaded | peak RSS / JSON |\n|---|---|---|---|\n");
    for (std::size_t i = 0; i < paths.size(); ++i)
        std::printf("| %s | %.0f | %.2f | %.2f |\n", paths[i].c_str(), results[i].mbPerSecond, results[i].speedUp,
                    results[i].rssRatio);
    // Linear cost: the largest .json against the smallest (compressed inputs measure inflation too).
    std::vector<std::size_t> json;
    for (std::size_t i = 0; i < paths.size(); ++i)
        if (!paths[i].ends_with(".gz"))
            json.push_back(i);
    if (json.size() >= 2) {
        auto bySize = [&](std::size_t a, std::size_t b) { return jsonMb(paths[a]) < jsonMb(paths[b]); };
        const auto [small, large] = std::minmax_element(json.begin(), json.end(), bySize);
        std::printf("MB/s of the largest .json against the smallest: %.2f (linear cost: >= 0.90)\n",
                    results[*large].mbPerSecond / results[*small].mbPerSecond);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 3 && !std::strcmp(argv[1], "--make-large")) { // child process: keeps tiling out of our RSS
        const auto path = ks::bench::largeTracePath(argv[2]);
        if (path.empty())
            return 1;
        if (!std::filesystem::exists(path + ".gz"))
            gzipCopy(path, path + ".gz");
        std::puts(path.c_str());
        return 0;
    }
    if (argc > 2)
        return compareSizes(std::vector<std::string>(argv + 1, argv + argc));
    std::string path;
    if (argc > 1) {
        path = argv[1];
    } else {
        const std::string cmd = std::string("'") + argv[0] + "' --make-large '" + KS_BENCH_DATA + "'";
        std::FILE* p = popen(cmd.c_str(), "r");
        char line[4096] = {0};
        if (!p || !std::fgets(line, sizeof line, p))
            return std::fprintf(stderr, "could not make the large trace\n"), 1;
        pclose(p);
        path = line;
        path.erase(path.find_last_not_of('\n') + 1);
    }
    const double fileMb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
    std::printf("trace: %s (%.1f MB)\n", path.c_str(), fileMb);

    // Alternated in one run: on a busy machine only ratios measured together mean much.
    std::vector<double> times, serialTimes;
    Run run{};
    for (int i = 0; i < 3; ++i) {
        serialTimes.push_back(timeLoad(path, Threads::AssembleInLine).seconds);
        run = timeLoad(path);
        times.push_back(run.seconds);
    }
    std::sort(times.begin(), times.end());
    std::sort(serialTimes.begin(), serialTimes.end());
    const double median = times[1];
    const double rss = peakRssMb();
    std::printf("load (median of 3): %.3f s   %.0f MB/s   %.2f M events/s   (%llu events)\n", median, fileMb / median,
                static_cast<double>(run.events) / median / 1e6, static_cast<unsigned long long>(run.events));
    std::printf("  assembled in line (one thread less): %.3f s   %.0f MB/s; parallel assembly is %.2fx faster\n",
                serialTimes[1], fileMb / serialTimes[1], serialTimes[1] / median);
    std::printf("peak RSS: %.1f MB = %.2f x file size (target <= 0.35)\n", rss, rss / fileMb);
    printMemoryUse(run);

    if (std::filesystem::exists(path + ".gz")) {
        const double gzMb = static_cast<double>(std::filesystem::file_size(path + ".gz")) / 1e6;
        std::vector<double> gzTimes(3);
        for (double& seconds : gzTimes)
            seconds = timeLoad(path + ".gz").seconds;
        std::sort(gzTimes.begin(), gzTimes.end());
        std::printf("load .json.gz (%.1f MB compressed, median of 3): %.3f s   %.0f MB/s of JSON\n", gzMb, gzTimes[1],
                    fileMb / gzTimes[1]);
    }

    const double py = pythonJsonLoadSeconds(path);
    if (py > 0)
        std::printf("python3 json.load: %.3f s   ratio %.1fx (target >= 10)\n", py, py / median);
    else
        std::printf("python3 json.load: not measured (python3 missing)\n");
    return 0;
}
