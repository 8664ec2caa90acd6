#include "collector/host/recordindex.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace ks::collector {
namespace {

// Adds `fresh` to `sorted`, both ordered by `before` (`fresh` is sorted first). Returns where the
// first of them landed: `sorted` is unchanged before it.
template <typename Before>
std::size_t mergeInto(std::vector<std::uint32_t>& sorted, std::vector<std::uint32_t>& fresh, Before before)
{
    if (fresh.empty())
        return sorted.size();
    std::sort(fresh.begin(), fresh.end(), before);
    const auto old = static_cast<std::ptrdiff_t>(sorted.size());
    sorted.insert(sorted.end(), fresh.begin(), fresh.end());
    // New records mostly start after the old ones: the merge then moves nothing.
    const auto from = std::upper_bound(sorted.begin(), sorted.begin() + old, fresh.front(), before);
    std::inplace_merge(from, sorted.begin() + old, sorted.end(), before);
    return static_cast<std::size_t>(from - sorted.begin());
}

bool isCall(const RecordedSlice& s)
{
    return s.category == EventCategory::Runtime || s.category == EventCategory::Driver;
}

} // namespace

void RecordIndex::update(const RecordedProcess& process)
{
    const auto& slices = process.slices;
    std::unordered_map<std::int64_t, std::vector<std::uint32_t>> newCalls; // by tid
    for (auto i = static_cast<std::uint32_t>(m_indexed); i < slices.size(); ++i) {
        const RecordedSlice& s = slices[i];
        if (isCall(s))
            newCalls[s.tid].push_back(i);
        else if (s.gpuOp >= 0 && s.correlation != kNoId)
            m_gpuOpsOfCorrelation.emplace(s.correlation, i);
    }
    for (auto& [tid, fresh] : newCalls) { // dropped after this update
        mergeInto(m_callsOfThread[tid], fresh, [&](std::uint32_t a, std::uint32_t b) {
            return std::pair(slices[a].start, a) < std::pair(slices[b].start, b);
        });
    }
    m_indexed = slices.size();
}

std::span<const std::uint32_t> RecordIndex::callsOf(std::int64_t tid) const
{
    const auto it = m_callsOfThread.find(tid);
    return it == m_callsOfThread.end() ? std::span<const std::uint32_t>() : it->second;
}

void RangesByStart::insert(const RecordedProcess& process, std::vector<std::uint32_t>& fresh)
{
    const auto& slices = process.slices;
    const std::size_t from = mergeInto(m_ranges, fresh, [&](std::uint32_t a, std::uint32_t b) {
        return std::tuple(slices[a].start, -slices[a].duration, a)
            < std::tuple(slices[b].start, -slices[b].duration, b);
    });
    m_latestEnd.resize(m_ranges.size());
    for (std::size_t i = from; i < m_ranges.size(); ++i)
        m_latestEnd[i] =
            std::max(i > 0 ? m_latestEnd[i - 1] : std::numeric_limits<TimeNs>::min(), sliceEnd(slices[m_ranges[i]]));
}

std::size_t RangesByStart::startedBefore(const RecordedProcess& process, TimeNs at, bool orAt) const
{
    const auto& slices = process.slices;
    const auto it = orAt ? std::upper_bound(m_ranges.begin(), m_ranges.end(), at,
                                            [&](TimeNs t, std::uint32_t r) { return t < slices[r].start; })
                         : std::lower_bound(m_ranges.begin(), m_ranges.end(), at,
                                            [&](std::uint32_t r, TimeNs t) { return slices[r].start < t; });
    return static_cast<std::size_t>(it - m_ranges.begin());
}

} // namespace ks::collector
