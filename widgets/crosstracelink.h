#pragma once
// A link between slices of two traces (the same collective on two ranks).
#include "core/timeline/traceslice.h"

namespace ks {

struct CrossTraceLink {
    TraceSlice from;
    TraceSlice to;

    bool operator==(const CrossTraceLink&) const = default;
};

} // namespace ks
