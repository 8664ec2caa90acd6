#pragma once
#include <cstdint>
#include <string>

namespace ks {

// All times in the model are integer nanoseconds; kineto writes µs with three decimals.
using TimeNs = std::int64_t;

// Nanoseconds as the microseconds that kineto and our JSON output write.
constexpr double toMicros(double ns) { return ns / 1000.0; }

// "1.234 ms", "56 ns", "2.5 s": three significant decimals in the largest fitting unit.
std::string formatDuration(TimeNs ns);

// Like formatDuration but keeps the sign and always shows the unit chosen for `unitOf`.
std::string formatTimeInUnitOf(TimeNs ns, TimeNs unitOf);

} // namespace ks
