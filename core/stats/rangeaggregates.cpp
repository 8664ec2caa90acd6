#include "core/stats/rangeaggregates.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

namespace {

bool overlaps(const SliceTable& slices, SliceId s, TimeNs from, TimeNs to)
{
    const TimeNs start = slices.start[s];
    return start < to && (slices.end(s) > from || (slices.duration[s] == 0 && start >= from));
}

TimeNs clipped(const SliceTable& slices, SliceId s, TimeNs from, TimeNs to)
{
    return std::max<TimeNs>(0, std::min(slices.end(s), to) - std::max(slices.start[s], from));
}

// Calls f(slice) for every slice of `row` overlapping [from, to), in start order.
template <class F>
void forEachInRow(const Trace& trace, std::uint32_t rowIndex, TimeNs from, TimeNs to, F f)
{
    const auto& slices = trace.slices();
    const Row& row = trace.rows()[rowIndex];
    // Zero-length slices ending exactly at `from` are found by starting one ns earlier.
    for (SliceId s = trace.firstEndingAfter(rowIndex, from - 1); s < row.end && slices.start[s] < to; ++s) {
        if (overlaps(slices, s, from, to))
            f(s);
    }
}

TimeNs unionLength(std::vector<std::pair<TimeNs, TimeNs>>& intervals)
{
    std::sort(intervals.begin(), intervals.end());
    TimeNs total = 0, openStart = 0, openEnd = 0;
    bool open = false;
    for (const auto& [start, end] : intervals) {
        if (open && start <= openEnd) {
            openEnd = std::max(openEnd, end);
            continue;
        }
        if (open)
            total += openEnd - openStart;
        openStart = start;
        openEnd = end;
        open = true;
    }
    return open ? total + (openEnd - openStart) : total;
}

} // namespace

RangeAggregates computeRangeAggregates(const Trace& trace, TimeNs from, TimeNs to,
                                       std::span<const std::uint32_t> tracks)
{
    RangeAggregates result;
    result.from = from;
    result.to = to;
    const auto& slices = trace.slices();
    const auto& rows = trace.rows();
    std::unordered_map<StringId, std::size_t> rowOfName;
    std::vector<std::uint32_t> sortedTracks(tracks.begin(), tracks.end());
    std::sort(sortedTracks.begin(), sortedTracks.end());
    sortedTracks.erase(std::unique(sortedTracks.begin(), sortedTracks.end()), sortedTracks.end());

    for (const auto t : sortedTracks) {
        const Track& track = trace.tracks()[t];
        std::vector<std::pair<TimeNs, TimeNs>> busy;
        for (std::uint32_t r = track.rowBegin; r < track.rowEnd; ++r) {
            const bool hasChildRow = r + 1 < track.rowEnd && rows[r + 1].lane == rows[r].lane;
            forEachInRow(trace, r, from, to, [&](SliceId s) {
                const TimeNs inside = clipped(slices, s, from, to);
                TimeNs children = 0;
                if (hasChildRow) {
                    // Children nest inside their parent, so clipping them to the parent's
                    // visible part is clipping them to the range.
                    const TimeNs lo = std::max(slices.start[s], from), hi = std::min(slices.end(s), to);
                    forEachInRow(trace, r + 1, lo, hi, [&](SliceId c) { children += clipped(slices, c, lo, hi); });
                }
                auto [it, inserted] = rowOfName.try_emplace(slices.name[s], result.rows.size());
                if (inserted) {
                    RangeAggregateRow row;
                    row.name = std::string(trace.str(slices.name[s]));
                    result.rows.push_back(std::move(row));
                }
                RangeAggregateRow& row = result.rows[it->second];
                ++row.count;
                row.total += inside;
                row.self += inside - children;
                row.min = std::min(row.min, inside);
                row.max = std::max(row.max, inside);
                row.slices.push_back(s);
                const SliceClass c = trace.classOf(s);
                if (c == SliceClass::Kernel || c == SliceClass::Memcpy || c == SliceClass::Memset)
                    busy.emplace_back(std::max(slices.start[s], from), std::min(slices.end(s), to));
            });
        }
        if (track.kind == TrackKind::GpuStream)
            result.streams.push_back({t, unionLength(busy)});
    }
    for (auto& row : result.rows) {
        std::sort(row.slices.begin(), row.slices.end(),
                  [&](SliceId a, SliceId b) { return slices.start[a] < slices.start[b]; });
    }
    std::stable_sort(result.rows.begin(), result.rows.end(),
                     [](const auto& a, const auto& b) { return a.total > b.total; });
    return result;
}

} // namespace ks
