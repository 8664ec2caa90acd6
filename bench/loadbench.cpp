// Load benchmark (issue 2): loads a ~745k-event kineto trace (big.pt.trace.json.gz tiled)
// and prints load time, MB/s, events/s, peak RSS, model bytes per event, and Python's
// json.load on the same file, measured in the same run.
//   bench_load [FILE]      FILE defaults to the tiled trace, made on first use.
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
    double bytesPerEvent;
};

Run timeLoad(const std::string& path)
{
    const auto t0 = ks::bench::Clock::now();
    const auto result = ks::loadTraceFile(path);
    const double s = ks::bench::secondsSince(t0);
    if (!result.ok()) {
        std::fprintf(stderr, "load failed: %s\n", result.fatal ? result.fatal->located().c_str() : "?");
        std::exit(1);
    }
    const auto events = result.trace->traceEventCount();
    return {s, events, static_cast<double>(result.trace->memoryBytes()) / static_cast<double>(events)};
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

    std::vector<double> times;
    Run run {};
    for (int i = 0; i < 3; ++i) {
        run = timeLoad(path);
        times.push_back(run.seconds);
    }
    std::sort(times.begin(), times.end());
    const double median = times[1];
    const double rss = peakRssMb();
    std::printf("load (median of 3): %.3f s   %.0f MB/s   %.2f M events/s   (%llu events)\n", median, fileMb / median,
                static_cast<double>(run.events) / median / 1e6, static_cast<unsigned long long>(run.events));
    std::printf("peak RSS: %.1f MB = %.2f x file size (target <= 0.75)\n", rss, rss / fileMb);
    std::printf("model memory: %.1f bytes per event (target <= 100)\n", run.bytesPerEvent);

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
