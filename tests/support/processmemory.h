#pragma once
// This process's memory as Linux reports it, for tests that state the GUI's peak and steady RSS.
#include <fstream>
#include <string>

namespace kstest {

// A field of /proc/self/status in MB ("VmRSS": now, "VmHWM": the peak); 0 where unreadable.
inline double rssMb(const std::string& field)
{
    std::ifstream status("/proc/self/status");
    std::string key;
    double kb = 0;
    while (status >> key) {
        if (key == field + ":" && status >> kb)
            return kb / 1024.0;
        status.ignore(1 << 16, '\n');
    }
    return 0;
}

// Starts VmHWM again from the current RSS (Linux: writing 5 to clear_refs).
inline void resetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

} // namespace kstest
