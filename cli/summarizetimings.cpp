#include "cli/summarizetimings.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace ks::cli {

namespace {

double seconds(const timespec& t) { return double(t.tv_sec) + double(t.tv_nsec) * 1e-9; }

} // namespace

TimePoint TimePoint::now()
{
    TimePoint t;
    t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
#if defined(__unix__) || defined(__APPLE__)
    rusage self{}, children{};
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    const auto cpu = [](const rusage& u) {
        return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
    };
    t.cpu = cpu(self) + cpu(children);
#else
    t.cpu = double(std::clock()) / CLOCKS_PER_SEC;
#endif
    return t;
}

void SummarizeTimings::addStartUp()
{
#ifdef __linux__
    // Field 22 of /proc/self/stat: the start in clock ticks since boot (CLOCK_BOOTTIME's origin).
    std::ifstream stat("/proc/self/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto afterName = text.rfind(')');
    if (afterName == std::string::npos)
        return;
    std::istringstream fields(text.substr(afterName + 2));
    std::string field;
    for (int i = 3; i < 22 && fields >> field; ++i) { }
    unsigned long long startTicks = 0;
    if (!(fields >> startTicks))
        return;
    timespec boot{};
    clock_gettime(CLOCK_BOOTTIME, &boot);
    const double wall = seconds(boot) - double(startTicks) / double(sysconf(_SC_CLK_TCK));
    add("start-up", wall, TimePoint::now().cpu);
#endif
}

TimePoint SummarizeTimings::add(const std::string& name, TimePoint from)
{
    const TimePoint to = TimePoint::now();
    add(name, to.wall - from.wall, to.cpu - from.cpu);
    return to;
}

void SummarizeTimings::add(const std::string& name, double wall, double cpu)
{
    for (auto& p : m_phases) {
        if (p.name == name) {
            p.wall += wall;
            p.cpu += cpu;
            return;
        }
    }
    m_phases.push_back({name, wall, cpu});
}

void SummarizeTimings::count(const std::string& name, double value)
{
    for (auto& c : m_counts) {
        if (c.name == name) {
            c.value = name.starts_with("peak") ? std::max(c.value, value) : c.value + value;
            return;
        }
    }
    m_counts.push_back({name, value});
}

void SummarizeTimings::add(const SummarizeTimings& other)
{
    for (const auto& p : other.m_phases)
        add(p.name, p.wall, p.cpu);
    for (const auto& c : other.m_counts)
        count(c.name, c.value);
}

std::string SummarizeTimings::encode(const std::string& linePrefix) const
{
    std::string text;
    char buffer[64];
    for (const auto& p : m_phases) {
        std::snprintf(buffer, sizeof buffer, " %.6f %.6f\n", p.wall, p.cpu);
        text += linePrefix + p.name + buffer;
    }
    for (const auto& c : m_counts) {
        std::snprintf(buffer, sizeof buffer, " %.6f\n", c.value);
        text += linePrefix + "#" + c.name + buffer;
    }
    return text;
}

void SummarizeTimings::decodeLine(const std::string& line)
{
    if (line.starts_with("#")) {
        const auto valueAt = line.rfind(' ');
        if (valueAt != std::string::npos && valueAt > 1)
            count(line.substr(1, valueAt - 1), std::strtod(line.c_str() + valueAt + 1, nullptr));
        return;
    }
    const auto cpuAt = line.rfind(' ');
    const auto wallAt = cpuAt == std::string::npos || cpuAt == 0 ? std::string::npos : line.rfind(' ', cpuAt - 1);
    if (wallAt == std::string::npos)
        return;
    add(line.substr(0, wallAt), std::strtod(line.c_str() + wallAt + 1, nullptr),
        std::strtod(line.c_str() + cpuAt + 1, nullptr));
}

std::string SummarizeTimings::line(const std::string& who) const
{
    double wall = 0, cpu = 0;
    for (const auto& p : m_phases) {
        if (p.name.find('/') == std::string::npos) { // "files/load": a part of "files", not a phase of its own
            wall += p.wall;
            cpu += p.cpu;
        }
    }
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, "timings %s: %.3f s wall, %.3f s CPU:", who.c_str(), wall, cpu);
    std::string text = buffer;
    for (const auto& p : m_phases) {
        std::snprintf(buffer, sizeof buffer, " %s %.3f s (%.0f%%) CPU %.3f s;", p.name.c_str(), p.wall,
                      wall > 0 ? 100 * p.wall / wall : 0.0, p.cpu);
        text += buffer;
    }
    for (const auto& c : m_counts) {
        std::snprintf(buffer, sizeof buffer, " %s = %.6g;", c.name.c_str(), c.value);
        text += buffer;
    }
    text.back() = '\n';
    return text;
}

} // namespace ks::cli
