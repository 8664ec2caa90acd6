#include "collector/injection/stagestats.h"

#include <cstdio>

namespace ks::injection {

std::string StageStats::summary(long pid, std::uint64_t buffers, std::uint64_t records, bool dropped) const
{
    const auto ms = [](const std::atomic<std::uint64_t>& ns) { return static_cast<double>(ns.load()) / 1e6; };
    const double perRecord = records ? static_cast<double>(translateNs.load()) / static_cast<double>(records) : 0.0;
    char line[512];
    std::snprintf(line, sizeof line,
                  "kinetoscope injection, pid %ld: %llu buffers (%.1f MB) from CUPTI%s, %llu records; translate "
                  "%.1f ms (%.0f ns/record); send %.1f ms in %llu writes (%.1f MB); %llu periodic flushes %.1f ms; "
                  "forced flush at exit %.1f ms",
                  pid, static_cast<unsigned long long>(buffers), static_cast<double>(completedBytes.load()) / 1e6,
                  dropped ? " dropped unread (consumer=drop)" : "", static_cast<unsigned long long>(records),
                  ms(translateNs), perRecord, ms(sendNs), static_cast<unsigned long long>(writes.load()),
                  static_cast<double>(sentBytes.load()) / 1e6, static_cast<unsigned long long>(flushes.load()),
                  ms(flushNs), ms(forcedFlushNs));
    return line;
}

} // namespace ks::injection
