#include "core/model/tracesubset.h"
#include "core/model/tracebuilder.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

namespace ks {

namespace {

// Flow indices ordered by one end's slice, ties in flow order (Trace::incomingFlows() and
// outgoingFlows() binary search them).
std::vector<std::uint32_t> flowsBy(const std::vector<Flow>& flows, SliceId Flow::*end)
{
    std::vector<std::uint32_t> order(flows.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return flows[a].*end < flows[b].*end; });
    return order;
}

} // namespace

std::shared_ptr<const Trace> traceOfProcesses(const Trace& trace, std::span<const std::uint32_t> processes)
{
    return TraceBuilder::subsetOf(trace, processes);
}

std::shared_ptr<const Trace> TraceBuilder::subsetOf(const Trace& source, std::span<const std::uint32_t> processes)
{
    auto out = std::make_shared<Trace>();
    Trace& t = *out;
    t.m_strings = StringPool(source.m_strings);
    t.m_deviceProperties = source.m_deviceProperties;
    t.m_metadata = source.m_metadata;
    t.m_diagnostics = source.m_diagnostics;
    t.m_phaseCounts = source.m_phaseCounts;
    t.m_traceEventCount = source.m_traceEventCount;
    t.m_baseTimeNs = source.m_baseTimeNs;
    t.m_textSource = source.m_textSource;
    t.m_categoryClass = source.m_categoryClass;
    t.m_flowTexts = source.m_flowTexts;
    t.m_keptEntries = source.m_keptEntries;
    t.m_gpuOpRecords = source.m_gpuOpRecords;

    std::vector<bool> wanted(source.m_processes.size(), false);
    for (std::uint32_t p : processes) {
        if (p < wanted.size())
            wanted[p] = true;
    }
    std::vector<std::uint32_t> processOf(source.m_processes.size(), kNoIndex); // old index -> new
    for (std::uint32_t p = 0; p < wanted.size(); ++p) {
        if (wanted[p]) {
            processOf[p] = std::uint32_t(t.m_processes.size());
            t.m_processes.push_back(source.m_processes[p]);
        }
    }

    // Tracks in their order; each one's rows, slices and thread instants are contiguous.
    const SliceTable& from = source.m_slices;
    SliceTable& slices = t.m_slices;
    const InstantTable& fromInstants = source.m_instants;
    InstantTable& instants = t.m_instants;
    const auto copyInstant = [&](std::uint32_t i, std::uint32_t track, std::uint32_t process) {
        instants.time.push_back(fromInstants.time[i]);
        instants.name.push_back(fromInstants.name[i]);
        instants.category.push_back(fromInstants.category[i]);
        instants.track.push_back(track);
        instants.process.push_back(process);
        instants.scope.push_back(fromInstants.scope[i]);
        instants.rawOffset.push_back(fromInstants.rawOffset[i]);
        instants.rawLength.push_back(fromInstants.rawLength[i]);
    };
    std::vector<std::uint32_t> trackOf(source.m_tracks.size(), kNoIndex);
    std::vector<SliceId> sliceOf(from.size(), kNoSlice);
    for (std::uint32_t i = 0; i < source.m_tracks.size(); ++i) {
        const Track& old = source.m_tracks[i];
        if (processOf[old.process] == kNoIndex)
            continue;
        const auto index = std::uint32_t(t.m_tracks.size());
        trackOf[i] = index;
        Track track = old;
        track.process = processOf[old.process];
        track.rowBegin = std::uint32_t(t.m_rows.size());
        const auto firstSlice = SliceId(slices.size());
        for (std::uint32_t r = old.rowBegin; r < old.rowEnd; ++r) {
            Row row = source.m_rows[r];
            row.track = index;
            row.begin = row.begin - old.sliceBegin + firstSlice;
            row.end = row.end - old.sliceBegin + firstSlice;
            t.m_rows.push_back(row);
        }
        track.rowEnd = std::uint32_t(t.m_rows.size());
        for (SliceId s = old.sliceBegin; s < old.sliceEnd; ++s) {
            sliceOf[s] = SliceId(slices.size());
            slices.start.push_back(from.start[s]);
            slices.duration.push_back(from.duration[s]);
            slices.name.push_back(from.name[s]);
            slices.category.push_back(from.category[s]);
            slices.row.push_back(from.row[s] - old.rowBegin + track.rowBegin);
            slices.rawOffset.push_back(from.rawOffset[s]);
            slices.rawLength.push_back(from.rawLength[s]);
            slices.correlation.push_back(from.correlation[s]);
            slices.externalId.push_back(from.externalId[s]);
        }
        track.sliceBegin = track.rowBegin < track.rowEnd ? firstSlice : 0;
        track.sliceEnd = track.rowBegin < track.rowEnd ? SliceId(slices.size()) : 0;
        const auto firstInstant = std::uint32_t(instants.size());
        for (std::uint32_t n = old.instantBegin; n < old.instantEnd; ++n)
            copyInstant(n, index, kNoIndex);
        track.instantBegin = old.instantEnd > old.instantBegin ? firstInstant : 0;
        track.instantEnd = old.instantEnd > old.instantBegin ? std::uint32_t(instants.size()) : 0;
        t.m_tracks.push_back(std::move(track));
    }
    for (Process& process : t.m_processes) {
        for (std::uint32_t& track : process.tracks)
            track = trackOf[track];
        std::erase(process.tracks, kNoIndex);
    }
    // Instants of no track, after the tracks' as the builder orders them: those of a kept
    // process, and the global ones.
    for (std::uint32_t n = 0; n < fromInstants.size(); ++n) {
        if (fromInstants.track[n] != kNoIndex)
            continue;
        const std::uint32_t process = fromInstants.process[n];
        if (process == kNoIndex || processOf[process] != kNoIndex)
            copyInstant(n, kNoIndex, process == kNoIndex ? kNoIndex : processOf[process]);
    }
    for (const CounterSeries& series : source.m_counters) {
        if (series.process != kNoIndex && processOf[series.process] == kNoIndex)
            continue;
        t.m_counters.push_back(series);
        if (series.process != kNoIndex)
            t.m_counters.back().process = processOf[series.process];
    }

    // Flows with both ends kept; the halves of kept slices. Slice order is kept, so the halves
    // stay sorted by slice.
    std::map<StringId, FlowCategoryStats> stats;
    for (const FlowCategoryStats& s : source.m_flowStats)
        stats[s.category] = {s.category, 0, 0, 0, 0};
    for (Flow flow : source.m_flows) {
        if (flow.from == kNoSlice || flow.to == kNoSlice || sliceOf[flow.from] == kNoSlice
            || sliceOf[flow.to] == kNoSlice)
            continue;
        flow.from = sliceOf[flow.from];
        flow.to = sliceOf[flow.to];
        ++stats[flow.category].paired;
        t.m_flows.push_back(flow);
    }
    for (FlowHalf half : source.m_unpairedHalves) {
        if (half.slice == kNoSlice || sliceOf[half.slice] == kNoSlice)
            continue;
        half.slice = sliceOf[half.slice];
        auto& s = stats[half.category];
        ++(half.isStart ? s.unpairedStarts : s.unpairedEnds);
        t.m_unpairedHalves.push_back(half);
    }
    for (auto& [category, s] : stats) {
        s.category = category;
        t.m_flowStats.push_back(s);
    }
    t.m_flowsByFrom = flowsBy(t.m_flows, &Flow::from);
    t.m_flowsByTo = flowsBy(t.m_flows, &Flow::to);

    for (std::size_t i = 0; i < source.m_gpuOpSlices.size(); ++i) {
        if (const SliceId s = sliceOf[source.m_gpuOpSlices[i]]; s != kNoSlice) {
            t.m_gpuOpSlices.push_back(s);
            t.m_gpuOpRecordOf.push_back(source.m_gpuOpRecordOf[i]);
        }
    }

    // The extent of what was kept.
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
    for (SliceId s = 0; s < slices.size(); ++s) {
        lo = std::min(lo, slices.start[s]);
        hi = std::max(hi, slices.end(s));
    }
    for (const TimeNs time : instants.time) {
        lo = std::min(lo, time);
        hi = std::max(hi, time);
    }
    for (const CounterSeries& series : t.m_counters) {
        if (!series.time.empty()) {
            lo = std::min(lo, series.time.front());
            hi = std::max(hi, series.time.back());
        }
    }
    if (lo > hi)
        lo = hi = 0;
    t.m_startTime = lo;
    t.m_endTime = hi;
    return out;
}

} // namespace ks
