#pragma once
// Aggregates for a time range × a set of tracks (the timeline's range selection): per slice
// name count, total, self, average, min and max, and per GPU stream the busy time.
#include "core/model/saturating.h"
#include "core/model/trace.h"

#include <limits>
#include <span>
#include <string>
#include <vector>

namespace ks {

struct RangeAggregateRow {
    std::string name;
    std::uint64_t count = 0;
    // Durations are clipped to the range, so a slice cut by the range edge counts the part inside.
    TimeNs total = 0;
    TimeNs self = 0; // total minus the (clipped) time of direct children on the same lane
    TimeNs min = std::numeric_limits<TimeNs>::max();
    TimeNs max = 0;
    std::vector<SliceId> slices; // by start time

    TimeNs average() const { return roundedMean(total, count); }
};

struct StreamBusyTime {
    std::uint32_t track = 0;
    TimeNs busy = 0; // union of its kernels, memcpys and memsets inside the range
};

struct RangeAggregates {
    TimeNs from = 0, to = 0;
    std::vector<RangeAggregateRow> rows; // by total, largest first
    std::vector<StreamBusyTime> streams; // the GPU-stream tracks of the set, in track order
};

// Slices of `tracks` overlapping [from, to); a zero-length slice counts when it starts inside.
RangeAggregates computeRangeAggregates(const Trace& trace, TimeNs from, TimeNs to,
                                       std::span<const std::uint32_t> tracks);

} // namespace ks
