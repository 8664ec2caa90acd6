#pragma once
// A union of half-open time intervals, kept sorted and disjoint, with the set algebra the
// step-time breakdown needs.
#include "core/model/time.h"

#include <utility>
#include <vector>

namespace ks::gpu {

class IntervalSet {
public:
    using Interval = std::pair<TimeNs, TimeNs>;

    IntervalSet() = default;
    // Any intervals, in any order, overlapping or not; empty ones are dropped.
    static IntervalSet unionOf(std::vector<Interval> intervals);

    IntervalSet united(const IntervalSet& other) const; // a linear merge of the two
    IntervalSet intersected(const IntervalSet& other) const;
    IntervalSet subtracted(const IntervalSet& other) const;
    // Total length of the set inside [start, end].
    TimeNs measureWithin(TimeNs start, TimeNs end) const;
    TimeNs measure() const;

    bool empty() const { return m_intervals.empty(); }
    const std::vector<Interval>& intervals() const { return m_intervals; }

private:
    // Sorted by start: overlapping or touching neighbours fold into one.
    void foldSorted();

    std::vector<Interval> m_intervals;
};

} // namespace ks::gpu
