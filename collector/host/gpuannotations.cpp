#include "collector/host/gpuannotations.h"

#include "core/model/timelimits.h"

#include <algorithm>
#include <limits>

namespace ks::collector {
namespace {

bool isRange(const RecordedSlice& s) { return s.gpuOp < 0 && s.category == EventCategory::Annotation; }
bool isCall(const RecordedSlice& s)
{
    return s.category == EventCategory::Runtime || s.category == EventCategory::Driver;
}

} // namespace

void GpuAnnotations::update(const RecordedProcess& process)
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
    const auto first = static_cast<std::uint32_t>(m_seen);
    const auto n = static_cast<std::uint32_t>(slices.size());
    // GPU ops first, so that the new calls and ranges below find those of their correlation.
    for (std::uint32_t i = first; i < n; ++i) {
        if (slices[i].gpuOp >= 0)
            m_gpuOpsOfCorrelation.emplace(slices[i].correlation, i);
    }
    // The new calls join their threads' lists, in start order.
    std::unordered_map<std::int64_t, std::size_t> oldCalls; // by tid: how many it had
    for (std::uint32_t i = first; i < n; ++i) {
        if (isCall(slices[i])) {
            auto& calls = m_threads[slices[i].tid].calls;
            oldCalls.try_emplace(slices[i].tid, calls.size());
            calls.push_back(i);
        }
    }
    const auto byStart = [&](std::uint32_t a, std::uint32_t b) { return slices[a].start < slices[b].start; };
    for (const auto& [tid, old] : oldCalls) {
        auto& calls = m_threads[tid].calls;
        const auto added = calls.begin() + std::ptrdiff_t(old);
        std::sort(added, calls.end(), byStart);
        std::inplace_merge(std::upper_bound(calls.begin(), added, *added, byStart), added, calls.end(), byStart);
    }
    // Each (range, call) pair is met once: new calls meet the ranges before the new ones are in.
    for (std::uint32_t i = first; i < n; ++i) {
        if (isCall(slices[i]))
            addCall(process, m_threads[slices[i].tid], i);
    }
    for (std::uint32_t i = first; i < n; ++i) {
        if (isRange(slices[i]))
            addRange(process, m_threads[slices[i].tid], i);
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

void GpuAnnotations::addCall(const RecordedProcess& process, const Thread& thread, std::uint32_t call)
{
    const auto& slices = process.slices;
    const TimeNs at = slices[call].start;
    // The ranges that started by then, latest first, while one of them may still run.
    auto i = static_cast<std::size_t>(std::upper_bound(thread.ranges.begin(), thread.ranges.end(), at,
                                                       [&](TimeNs t, std::uint32_t r) { return t < slices[r].start; })
                                      - thread.ranges.begin());
    for (; i > 0 && thread.latestEnd[i - 1] >= at; --i) {
        if (sliceEnd(slices[thread.ranges[i - 1]]) >= at)
            inRange(process, thread.ranges[i - 1], slices[call].correlation);
    }
}

void GpuAnnotations::addRange(const RecordedProcess& process, Thread& thread, std::uint32_t range)
{
    const auto& slices = process.slices;
    const RecordedSlice& r = slices[range];
    const auto at = std::upper_bound(thread.ranges.begin(), thread.ranges.end(), r.start,
                                     [&](TimeNs t, std::uint32_t other) { return t < slices[other].start; });
    const auto position = static_cast<std::size_t>(at - thread.ranges.begin());
    thread.ranges.insert(at, range);
    thread.latestEnd.resize(thread.ranges.size());
    for (std::size_t i = position; i < thread.ranges.size(); ++i)
        thread.latestEnd[i] = std::max(i > 0 ? thread.latestEnd[i - 1] : std::numeric_limits<TimeNs>::min(),
                                       sliceEnd(slices[thread.ranges[i]]));
    const TimeNs end = sliceEnd(r);
    for (auto call = std::lower_bound(thread.calls.begin(), thread.calls.end(), r.start,
                                      [&](std::uint32_t c, TimeNs t) { return slices[c].start < t; });
         call != thread.calls.end() && slices[*call].start <= end; ++call)
        inRange(process, range, slices[*call].correlation);
}

void GpuAnnotations::inRange(const RecordedProcess& process, std::uint32_t range, std::int64_t correlation)
{
    m_rangesOfCorrelation[correlation].push_back(range);
    const auto [first, last] = m_gpuOpsOfCorrelation.equal_range(correlation);
    for (auto gpuOp = first; gpuOp != last; ++gpuOp)
        widen(process, range, gpuOp->second);
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
