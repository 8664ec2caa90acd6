// Load benchmark (issues 2 and 15): loads a ~745k-event kineto trace (big.pt.trace.json.gz
// tiled) and prints load time, MB/s, events/s, peak RSS, model bytes per event by part, and
// Python's json.load on the same file, measured in the same run.
//   bench_load [FILE]          FILE defaults to the tiled trace, made on first use.
//   bench_load FILE FILE...    each file in a child process of its own (its own peak RSS),
//                              then MB/s of the last file against the first: cost is linear
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
                            "print(time.perf_counter()-t)\" '" + path + "' 2>/dev/null";
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

Run timeLoad(const std::string& path, bool assembleInParallel = true)
{
    ks::LoadOptions options;
    options.assembleInParallel = assembleInParallel;
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

// Loads `path` (best of `runs`) in a child process and returns its MB/s, or -1.
double loadInChild(const std::string& path, int runs)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    const double fileMb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
    std::fflush(stdout);
    const double rss = ks::bench::peakRssMbInChild([&] {
        close(fds[0]);
        Run best {1e30, 0, {}};
        for (int i = 0; i < runs; ++i) {
            const Run run = timeLoad(path);
            if (run.seconds < best.seconds)
                best = run;
        }
        const double mbPerSecond = fileMb / best.seconds;
        std::printf("%s: %.1f MB, %llu events: %.3f s (best of %d)   %.0f MB/s   %.2f M events/s\n", path.c_str(), fileMb,
                    static_cast<unsigned long long>(best.events), best.seconds, runs, mbPerSecond,
                    static_cast<double>(best.events) / best.seconds / 1e6);
        printMemoryUse(best);
        std::fflush(stdout);
        return write(fds[1], &mbPerSecond, sizeof mbPerSecond) == sizeof mbPerSecond;
    });
    close(fds[1]);
    double mbPerSecond = -1;
    if (read(fds[0], &mbPerSecond, sizeof mbPerSecond) != sizeof mbPerSecond)
        mbPerSecond = -1;
    close(fds[0]);
    if (rss < 0)
        return -1;
    std::printf("  peak RSS: %.1f MB = %.2f x file size (target <= 0.35)\n", rss, rss / fileMb);
    return mbPerSecond;
}

int compareSizes(const std::vector<std::string>& paths)
{
    std::vector<double> rates;
    for (const auto& path : paths) {
        const bool large = std::filesystem::file_size(path) > 600'000'000;
        rates.push_back(loadInChild(path, large ? 1 : 3));
        if (rates.back() <= 0)
            return std::fprintf(stderr, "could not load %s\n", path.c_str()), 1;
    }
    std::printf("MB/s of the largest against the smallest: %.2f (linear cost: >= 0.90)\n", rates.back() / rates.front());
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
        path.erase(path.find_last_not_of("\n") + 1);
    }
    const double fileMb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
    std::printf("trace: %s (%.1f MB)\n", path.c_str(), fileMb);

    // Alternated in one run: on a busy machine only ratios measured together mean much.
    std::vector<double> times, serialTimes;
    Run run {};
    for (int i = 0; i < 3; ++i) {
        serialTimes.push_back(timeLoad(path, false).seconds);
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
        std::vector<double> gzTimes;
        for (int i = 0; i < 3; ++i)
            gzTimes.push_back(timeLoad(path + ".gz").seconds);
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
