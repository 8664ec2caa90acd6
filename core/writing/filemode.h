#pragma once
// The mode open(path, O_CREAT, 0666) would give a new file: 0666 less the umask. mkstemp
// creates 0600, and a file we rename into place should look like any other the user makes.
// The umask is read from /proc: umask() can only read it by setting it, which races with
// other threads creating files.
#include <cstdio>
#include <sys/stat.h>

namespace ks {

inline mode_t newFileMode()
{
    mode_t mask = 022; // the usual default where /proc/self/status has no Umask line (< 4.7)
    if (std::FILE* status = std::fopen("/proc/self/status", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, status)) {
            unsigned value = 0;
            if (std::sscanf(line, "Umask: %o", &value) == 1) {
                mask = static_cast<mode_t>(value);
                break;
            }
        }
        std::fclose(status);
    }
    return 0666 & ~mask;
}

} // namespace ks
