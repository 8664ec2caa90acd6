#include "core/timeline/contentextent.h"

#include <algorithm>
#include <limits>

namespace ks {

TimeExtent contentExtent(const Trace& trace)
{
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
    const SliceTable& slices = trace.slices();
    for (std::size_t i = 0; i < slices.size(); ++i) {
        lo = std::min(lo, slices.start[i]);
        hi = std::max(hi, slices.start[i] + slices.duration[i]);
    }
    const InstantTable& instants = trace.instants();
    for (std::size_t i = 0; i < instants.size(); ++i) {
        if (instants.scope[i] == InstantScope::Global)
            continue;
        lo = std::min(lo, instants.time[i]);
        hi = std::max(hi, instants.time[i]);
    }
    for (const CounterSeries& counter : trace.counters()) {
        if (!counter.time.empty()) {
            lo = std::min(lo, counter.time.front());
            hi = std::max(hi, counter.time.back());
        }
    }
    if (lo >= hi)
        return {trace.startTime(), trace.endTime()};
    return {lo, hi};
}

} // namespace ks
