#include "collector/host/gpuannotations.h"

#include "core/model/timelimits.h"

#include <algorithm>

namespace ks::collector {
namespace {

bool isRange(const RecordedSlice& s) { return s.gpuOp < 0 && s.category == EventCategory::Annotation; }
bool isCall(const RecordedSlice& s)
{
    return s.category == EventCategory::Runtime || s.category == EventCategory::Driver;
}

} // namespace

void GpuAnnotations::update(const RecordedProcess& process, RecordIndex& index)
{
    const auto& slices = process.slices;
    if (!m_hasRanges) {
        m_hasRanges = std::any_of(slices.begin() + std::ptrdiff_t(m_seen), slices.end(), isRange);
        if (!m_hasRanges) {
            m_seen = slices.size();
            return;
        }
        m_seen = 0; // the first range: everything is read from the start
    }
    index.update(process); // first: the new calls and ranges below find the new GPU ops
    const auto first = static_cast<std::uint32_t>(m_seen);
    const auto n = static_cast<std::uint32_t>(slices.size());
    // Each (range, call) pair is met once: the new calls meet the ranges before the new ones are in.
    std::unordered_map<std::int64_t, std::vector<std::uint32_t>> newRanges; // by tid
    for (std::uint32_t i = first; i < n; ++i) {
        const RecordedSlice& s = slices[i];
        if (isRange(s)) {
            newRanges[s.tid].push_back(i);
        } else if (isCall(s)) {
            const auto ranges = m_rangesOfThread.find(s.tid);
            if (ranges == m_rangesOfThread.end())
                continue;
            const std::size_t started = ranges->second.startedBefore(process, s.start, true);
            ranges->second.forEachRunningAt(
                process, started, s.start, [&](std::uint32_t range) { inRange(process, index, range, s.correlation); });
        }
    }
    for (auto& [tid, fresh] : newRanges) {
        m_rangesOfThread[tid].insert(process, fresh);
        const auto calls = index.callsOf(tid);
        for (const std::uint32_t range : fresh) {
            const TimeNs end = sliceEnd(slices[range]);
            for (auto call = std::lower_bound(calls.begin(), calls.end(), slices[range].start,
                                              [&](std::uint32_t c, TimeNs t) { return slices[c].start < t; });
                 call != calls.end() && slices[*call].start <= end; ++call)
                inRange(process, index, range, slices[*call].correlation);
        }
    }
    for (std::uint32_t i = first; i < n; ++i) {
        if (slices[i].gpuOp < 0)
            continue;
        const auto ranges = m_rangesOfCorrelation.find(slices[i].correlation);
        if (ranges != m_rangesOfCorrelation.end()) {
            for (const std::uint32_t range : ranges->second)
                widen(process, range, i);
        }
    }
    m_seen = n;
}

void GpuAnnotations::inRange(const RecordedProcess& process, const RecordIndex& index, std::uint32_t range,
                             std::int64_t correlation)
{
    if (correlation == kNoId) // launched nothing that could be told apart
        return;
    m_rangesOfCorrelation[correlation].push_back(range);
    index.forEachGpuOp(correlation, [&](std::uint32_t gpuOp) { widen(process, range, gpuOp); });
}

void GpuAnnotations::widen(const RecordedProcess& process, std::uint32_t range, std::uint32_t gpuOp)
{
    const RecordedSlice& g = process.slices[gpuOp];
    const auto [it, inserted] = m_spans.try_emplace({range, g.pid, g.tid}, Span{g.start, sliceEnd(g)});
    it->second.start = std::min(it->second.start, g.start);
    it->second.end = std::max(it->second.end, sliceEnd(g));
}

std::vector<RecordedSlice> GpuAnnotations::slices(const RecordedProcess& process) const
{
    std::vector<RecordedSlice> out;
    out.reserve(m_spans.size());
    for (const auto& [key, span] : m_spans) {
        const auto& [range, device, stream] = key;
        RecordedSlice a;
        a.pid = device;
        a.tid = stream;
        // Within the model's limits first, so that the 1 ns margins cannot overflow.
        const TimeNs start = std::clamp(span.start, -kMaxTimeNs, kMaxTimeNs);
        a.start = start - 1;
        a.duration = std::min(std::clamp(span.end, start, kMaxTimeNs) - start, kMaxTimeNs) + 2;
        a.name = process.slices[range].name;
        a.category = EventCategory::GpuAnnotation;
        a.op = process.slices[range].op; // a record_function label's External id
        out.push_back(a);
    }
    return out;
}

} // namespace ks::collector
