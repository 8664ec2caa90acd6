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

bool isGpuWork(SliceClass c) { return c == SliceClass::Kernel || c == SliceClass::Memcpy || c == SliceClass::Memset; }

// Length of the union of a GPU stream's kernels, copies and sets inside [from, to). Each row is
// sorted by start, so the rows are merged (a heap of one cursor per row, earliest on top) and
// folded as they come: no interval per slice is held (those were the range table's transient).
TimeNs busyTime(const Trace& trace, const Track& track, TimeNs from, TimeNs to)
{
    const auto& slices = trace.slices();
    struct Cursor {
        SliceId at, end;
    };
    const auto nextBusy = [&](SliceId s, SliceId end) {
        for (; s < end && slices.start[s] < to; ++s) {
            if (isGpuWork(trace.classOf(s)) && overlaps(slices, s, from, to))
                return s;
        }
        return end;
    };
    const auto later = [&](const Cursor& a, const Cursor& b) { return slices.start[a.at] > slices.start[b.at]; };
    std::vector<Cursor> rows;
    for (std::uint32_t r = track.rowBegin; r < track.rowEnd; ++r) {
        const Row& row = trace.rows()[r];
        if (const SliceId s = nextBusy(trace.firstEndingAfter(r, from - 1), row.end); s < row.end)
            rows.push_back({s, row.end});
    }
    std::make_heap(rows.begin(), rows.end(), later);
    TimeNs total = 0, openStart = 0, openEnd = 0;
    bool open = false;
    while (!rows.empty()) {
        std::pop_heap(rows.begin(), rows.end(), later);
        Cursor& row = rows.back();
        const TimeNs start = std::max(slices.start[row.at], from), end = std::min(slices.end(row.at), to);
        if (open && start <= openEnd) {
            openEnd = std::max(openEnd, end);
        } else {
            total = saturatingAdd(total, open ? openEnd - openStart : 0);
            openStart = start;
            openEnd = end;
            open = true;
        }
        row.at = nextBusy(row.at + 1, row.end);
        if (row.at < row.end)
            std::push_heap(rows.begin(), rows.end(), later);
        else
            rows.pop_back();
    }
    return open ? saturatingAdd(total, openEnd - openStart) : total;
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
        for (std::uint32_t r = track.rowBegin; r < track.rowEnd; ++r) {
            const bool hasChildRow = r + 1 < track.rowEnd && rows[r + 1].lane == rows[r].lane;
            forEachInRow(trace, r, from, to, [&](SliceId s) {
                const TimeNs inside = clipped(slices, s, from, to);
                TimeNs children = 0;
                if (hasChildRow) {
                    // Children nest inside their parent, so clipping them to the parent's
                    // visible part is clipping them to the range.
                    const TimeNs lo = std::max(slices.start[s], from), hi = std::min(slices.end(s), to);
                    forEachInRow(trace, r + 1, lo, hi,
                                 [&](SliceId c) { children = saturatingAdd(children, clipped(slices, c, lo, hi)); });
                }
                auto [it, inserted] = rowOfName.try_emplace(slices.name[s], result.rows.size());
                if (inserted) {
                    RangeAggregateRow row;
                    row.name = std::string(trace.str(slices.name[s]));
                    result.rows.push_back(std::move(row));
                }
                RangeAggregateRow& row = result.rows[it->second];
                ++row.count;
                row.total = saturatingAdd(row.total, inside);
                row.self = saturatingAdd(row.self, saturatingSubtract(inside, children));
                row.min = std::min(row.min, inside);
                row.max = std::max(row.max, inside);
                row.slices.push_back(s);
            });
        }
        if (track.kind == TrackKind::GpuStream)
            result.streams.push_back({t, busyTime(trace, track, from, to)});
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
