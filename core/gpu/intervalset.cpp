#include "core/gpu/intervalset.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace ks::gpu {

IntervalSet IntervalSet::unionOf(std::vector<Interval> intervals)
{
    std::erase_if(intervals, [](const Interval& i) { return i.second <= i.first; });
    std::sort(intervals.begin(), intervals.end());
    IntervalSet set;
    set.m_intervals = std::move(intervals);
    set.foldSorted();
    return set;
}

IntervalSet IntervalSet::united(const IntervalSet& other) const
{
    IntervalSet out;
    out.m_intervals.reserve(m_intervals.size() + other.m_intervals.size());
    std::merge(m_intervals.begin(), m_intervals.end(), other.m_intervals.begin(), other.m_intervals.end(),
               std::back_inserter(out.m_intervals));
    out.foldSorted();
    return out;
}

// In place, so that a union holds no second array beside its input.
void IntervalSet::foldSorted()
{
    std::size_t kept = 0;
    for (std::size_t i = 1; i < m_intervals.size(); ++i) {
        auto& last = m_intervals[kept];
        if (m_intervals[i].first <= last.second)
            last.second = std::max(last.second, m_intervals[i].second);
        else
            m_intervals[++kept] = m_intervals[i];
    }
    if (!m_intervals.empty())
        m_intervals.resize(kept + 1);
}

IntervalSet IntervalSet::intersected(const IntervalSet& other) const
{
    IntervalSet out;
    std::size_t i = 0, j = 0;
    const auto& a = m_intervals;
    const auto& b = other.m_intervals;
    out.m_intervals.reserve(a.size() + b.size()); // the most it can hold: no copies while it grows
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
    out.m_intervals.reserve(m_intervals.size() + b.size()); // the most it can hold
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
