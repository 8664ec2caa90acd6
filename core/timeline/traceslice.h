#pragma once
// A slice of one of the traces shown together (a comparison, the ranks of a run): the
// trace's index in the timeline and the slice in that trace.
#include "core/model/trace.h"

namespace ks {

struct TraceSlice {
    std::uint32_t trace = 0;
    SliceId slice = kNoSlice;

    bool valid() const { return slice != kNoSlice; }
    bool operator==(const TraceSlice&) const = default;
};

} // namespace ks
