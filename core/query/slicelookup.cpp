#include "core/query/slicelookup.h"

#include <algorithm>

namespace ks::query {

SliceId sliceStartingAt(const Trace& trace, std::int64_t track, TimeNs ts)
{
    if (track < 0 || static_cast<std::uint64_t>(track) >= trace.tracks().size())
        return kNoSlice;
    const Track& t = trace.tracks()[static_cast<std::size_t>(track)];
    const auto& starts = trace.slices().start;
    SliceId best = kNoSlice;
    for (std::uint32_t r = t.rowBegin; r < t.rowEnd; ++r) {
        const Row& row = trace.rows()[r];
        const auto it = std::lower_bound(starts.begin() + row.begin, starts.begin() + row.end, ts);
        if (it == starts.begin() + row.end || *it != ts)
            continue;
        const auto s = static_cast<SliceId>(it - starts.begin());
        if (best == kNoSlice || row.depth < trace.rowOf(best).depth)
            best = s;
    }
    return best;
}

} // namespace ks::query
