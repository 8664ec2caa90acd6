#pragma once
// From a query's row back to the timeline: the slice a (track, ts) pair names.
#include "core/model/trace.h"

namespace ks::query {

// The outermost slice of `track` that starts exactly at `ts`; kNoSlice when there is none (or
// the track does not exist).
SliceId sliceStartingAt(const Trace& trace, std::int64_t track, TimeNs ts);

} // namespace ks::query
