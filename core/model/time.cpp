#include "core/model/time.h"

#include <cstdint>
#include <cstdio>

namespace ks {

namespace {

struct Unit {
    TimeNs scale;
    const char* suffix;
};

Unit unitFor(TimeNs magnitude)
{
    // std::llabs(INT64_MIN) is undefined: compare the negative side instead.
    if (magnitude < 0)
        magnitude = magnitude == INT64_MIN ? INT64_MAX : -magnitude;
    if (magnitude >= 1'000'000'000)
        return {1'000'000'000, "s"};
    if (magnitude >= 1'000'000)
        return {1'000'000, "ms"};
    if (magnitude >= 1'000)
        return {1'000, "µs"};
    return {1, "ns"};
}

std::string format(TimeNs ns, Unit u)
{
    char buf[64];
    if (u.scale == 1)
        std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
    else
        std::snprintf(buf, sizeof buf, "%.3f %s", static_cast<double>(ns) / static_cast<double>(u.scale), u.suffix);
    return buf;
}

} // namespace

std::string formatDuration(TimeNs ns) { return format(ns, unitFor(ns)); }

std::string formatTimeInUnitOf(TimeNs ns, TimeNs unitOf) { return format(ns, unitFor(unitOf)); }

} // namespace ks
