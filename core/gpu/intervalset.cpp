#include "core/gpu/intervalset.h"

#include <algorithm>
#include <iterator>

namespace ks::gpu {

IntervalSet IntervalSet::unionOf(std::vector<Interval> intervals)
{
    std::erase_if(intervals, [](const Interval& i) { return i.second <= i.first; });
    std::sort(intervals.begin(), intervals.end());
    IntervalSet set;
    for (const auto& iv : intervals) {
        if (!set.m_intervals.empty() && iv.first <= set.m_intervals.back().second)
            set.m_intervals.back().second = std::max(set.m_intervals.back().second, iv.second);
        else
            set.m_intervals.push_back(iv);
    }
    return set;
}

IntervalSet IntervalSet::united(const IntervalSet& other) const
{
    IntervalSet out;
    out.m_intervals.reserve(m_intervals.size() + other.m_intervals.size());
    std::merge(m_intervals.begin(), m_intervals.end(), other.m_intervals.begin(), other.m_intervals.end(),
               std::back_inserter(out.m_intervals));
    // Sorted by start: overlapping or touching neighbours fold, as in unionOf().
    std::size_t kept = 0;
    for (std::size_t i = 1; i < out.m_intervals.size(); ++i) {
        auto& last = out.m_intervals[kept];
        if (out.m_intervals[i].first <= last.second)
            last.second = std::max(last.second, out.m_intervals[i].second);
        else
            out.m_intervals[++kept] = out.m_intervals[i];
    }
    if (!out.m_intervals.empty())
        out.m_intervals.resize(kept + 1);
    return out;
}

IntervalSet IntervalSet::intersected(const IntervalSet& other) const
{
    IntervalSet out;
    std::size_t i = 0, j = 0;
    const auto& a = m_intervals;
    const auto& b = other.m_intervals;
    while (i < a.size() && j < b.size()) {
        const TimeNs lo = std::max(a[i].first, b[j].first);
        const TimeNs hi = std::min(a[i].second, b[j].second);
        if (lo < hi)
            out.m_intervals.emplace_back(lo, hi);
        if (a[i].second < b[j].second)
            ++i;
        else
            ++j;
    }
    return out;
}

IntervalSet IntervalSet::subtracted(const IntervalSet& other) const
{
    IntervalSet out;
    const auto& b = other.m_intervals;
    std::size_t j = 0;
    for (auto [lo, hi] : m_intervals) {
        while (j < b.size() && b[j].second <= lo)
            ++j;
        std::size_t k = j;
        while (k < b.size() && b[k].first < hi) {
            if (b[k].first > lo)
                out.m_intervals.emplace_back(lo, b[k].first);
            lo = std::max(lo, b[k].second);
            ++k;
        }
        if (lo < hi)
            out.m_intervals.emplace_back(lo, hi);
    }
    return out;
}

TimeNs IntervalSet::measureWithin(TimeNs start, TimeNs end) const
{
    auto it = std::lower_bound(m_intervals.begin(), m_intervals.end(), start,
                               [](const Interval& iv, TimeNs t) { return iv.second <= t; });
    TimeNs total = 0;
    for (; it != m_intervals.end() && it->first < end; ++it)
        total += std::min(it->second, end) - std::max(it->first, start);
    return total;
}

TimeNs IntervalSet::measure() const
{
    TimeNs total = 0;
    for (const auto& [lo, hi] : m_intervals)
        total += hi - lo;
    return total;
}

} // namespace ks::gpu
