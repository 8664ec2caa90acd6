#pragma once
#include "core/model/time.h"

namespace ks {

// The largest time or duration the model accepts: under 2^62 ns (146 years) leaves room
// for start + duration without overflow. The loader skips events beyond it; the builder
// clamps what other paths (the collector) bring.
inline constexpr TimeNs kMaxTimeNs = (TimeNs(1) << 62) - 1;

} // namespace ks
