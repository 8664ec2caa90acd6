#pragma once
// What the benchmarks measure: wall time, CPU time of all threads (on a busy shared machine
// the wall time says little), and peak RSS, ours or a child's.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace ks::bench {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

inline double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

inline double cpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

// Wall and CPU time since a point: on a shared machine the wall time says little.
struct Since {
    Clock::time_point wall = Clock::now();
    double cpu = cpuSeconds();
    double wallMs() const { return msSince(wall); }
    double cpuMs() const { return (cpuSeconds() - cpu) * 1000.0; }
};

// The median of some runs' figures (the upper one of an even count).
inline double median(std::vector<double> values)
{
    if (values.empty())
        return 0.0;
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(values.size() / 2), values.end());
    return values[values.size() / 2];
}

inline double peakRssMb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Runs `work` in a child process (keeps its memory out of ours) and returns the child's
// peak RSS in MB, or -1 when it failed.
template <class Work>
double peakRssMbInChild(Work work)
{
    const pid_t child = fork();
    if (child == 0)
        _exit(work() ? 0 : 1);
    int status = 0;
    rusage usage{};
    if (wait4(child, &status, 0, &usage) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

} // namespace ks::bench
