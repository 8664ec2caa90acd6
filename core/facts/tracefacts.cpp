#include "core/facts/tracefacts.h"

#include "core/model/freecolumn.h"
#include "core/model/saturating.h"

#include <algorithm>
#include <future>
#include <mutex>

namespace ks::facts {

void CorrelationIndex::Links::finish(const Trace& trace)
{
    const auto& start = trace.slices().start;
    std::sort(m_pairs.begin(), m_pairs.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first)
            return a.first < b.first;
        return start[a.second] != start[b.second] ? start[a.second] < start[b.second] : a.second < b.second;
    });
    m_ids.reserve(m_pairs.size());
    m_slices.reserve(m_pairs.size());
    for (const auto& [id, s] : m_pairs) {
        m_ids.push_back(id);
        m_slices.push_back(s);
    }
    freeColumn(m_pairs);
}

std::span<const SliceId> CorrelationIndex::Links::find(std::int64_t id) const
{
    if (id == kNoId)
        return {};
    const auto [lo, hi] = std::equal_range(m_ids.begin(), m_ids.end(), id);
    const auto first = static_cast<std::size_t>(lo - m_ids.begin());
    return {m_slices.data() + first, static_cast<std::size_t>(hi - lo)};
}

CorrelationIndex::CorrelationIndex(const Trace& trace, const std::vector<facts::PluginKind>& kinds)
    : m_trace(&trace)
{
    const auto& slices = trace.slices();
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (facts::isDeviceKind(kinds[s])) {
            if (slices.correlation[s] != kNoId)
                m_gpuOpByCorrelation.add(slices.correlation[s], s);
            continue;
        }
        const SliceClass c = trace.classOf(s);
        if (isLaunchClass(c)) {
            if (slices.correlation[s] != kNoId)
                m_launchByCorrelation.add(slices.correlation[s], s);
            if (slices.externalId[s] != kNoId)
                m_launchByExternalId.add(slices.externalId[s], s);
        } else if (c == SliceClass::CpuOp && slices.externalId[s] != kNoId) {
            m_opByExternalId.add(slices.externalId[s], s);
        }
    }
    m_launchByCorrelation.finish(trace);
    m_gpuOpByCorrelation.finish(trace);
    m_launchByExternalId.finish(trace);
    m_opByExternalId.finish(trace);
}

SliceId CorrelationIndex::launchOf(SliceId gpuOp) const
{
    const auto launches = m_launchByCorrelation.find(m_trace->slices().correlation[gpuOp]);
    return launches.empty() ? kNoSlice : launches.front();
}

std::span<const SliceId> CorrelationIndex::gpuOpsOf(SliceId launch) const
{
    return m_gpuOpByCorrelation.find(m_trace->slices().correlation[launch]);
}

std::span<const SliceId> CorrelationIndex::launchesOf(SliceId cpuOp) const
{
    return m_launchByExternalId.find(m_trace->slices().externalId[cpuOp]);
}

SliceId CorrelationIndex::opOf(SliceId launch) const
{
    const auto& slices = m_trace->slices();
    for (const SliceId op : m_opByExternalId.find(slices.externalId[launch])) {
        if (m_trace->trackOf(op) == m_trace->trackOf(launch))
            return op;
    }
    return enclosingSlice(*m_trace, launch, LaneKind::Main, [](SliceClass c) { return c == SliceClass::CpuOp; });
}

SliceId enclosingSlice(const Trace& trace, SliceId s, LaneKind laneKind, bool (*accept)(SliceClass))
{
    const auto& slices = trace.slices();
    const Row& own = trace.rowOf(s);
    const Track& track = trace.tracks()[own.track];
    const TimeNs start = slices.start[s], end = slices.end(s);
    for (std::size_t laneIndex = 0; laneIndex < track.lanes.size(); ++laneIndex) {
        const Lane& lane = track.lanes[laneIndex];
        if (lane.kind != laneKind)
            continue;
        // In its own lane only the rows above the slice can enclose it.
        int depth = laneIndex == own.lane ? int(own.depth) - 1 : int(lane.depthCount) - 1;
        for (; depth >= 0; --depth) {
            const SliceId candidate = trace.sliceAt(track.rowBegin + lane.firstRow + std::uint32_t(depth), start);
            if (candidate != kNoSlice && candidate != s && slices.end(candidate) >= end
                && accept(trace.classOf(candidate)))
                return candidate;
        }
    }
    return kNoSlice;
}

SliceId pythonFrameOf(const Trace& trace, SliceId hostSlice)
{
    return enclosingSlice(trace, hostSlice, LaneKind::Python,
                          [](SliceClass c) { return c == SliceClass::PythonFunction; });
}

TimeNs TraceFacts::meanStepTime() const
{
    if (windows.steps.empty())
        return windows.stepsSpan();
    // Each step spans its host range and the device work it launched: the plugin's adjusted
    // window alone can start after the host range (device work left over from before).
    TimeNs total = 0;
    for (const auto& step : windows.steps)
        total = saturatingAdd(total, std::max(step.end, step.hostEnd) - std::min(step.start, step.hostStart));
    return total / TimeNs(windows.steps.size());
}

int TraceFacts::hostStepOf(TimeNs start, TimeNs end) const
{
    const auto& steps = windows.steps;
    if (steps.empty())
        return -1;
    if (!hasSteps())
        return 0;
    // Steps are sorted by start and do not overlap on the host.
    const auto it = std::upper_bound(steps.begin(), steps.end(), start,
                                     [](TimeNs t, const facts::StepWindow& w) { return t < w.hostStart; });
    if (it == steps.begin())
        return -1;
    const auto& step = *(it - 1);
    return end <= step.hostEnd ? int(it - 1 - steps.begin()) : -1;
}

int TraceFacts::deviceStepOf(SliceId gpuOp) const
{
    if (!hasSteps())
        return windows.steps.empty() ? -1 : 0;
    const SliceId launch = links.launchOf(gpuOp);
    if (launch != kNoSlice) {
        const auto& slices = trace->slices();
        return hostStepOf(slices.start[launch], slices.end(launch));
    }
    const TimeNs t = trace->slices().start[gpuOp];
    for (std::size_t i = 0; i < windows.steps.size(); ++i) {
        if (windows.steps[i].start <= t && t < windows.steps[i].end)
            return int(i);
    }
    return -1;
}

std::shared_ptr<const TraceFacts> makeTraceFacts(std::shared_ptr<const Trace> trace, const StepRules& rules)
{
    auto facts = std::make_shared<TraceFacts>();
    facts->stepRules = rules;
    facts->kinds = facts::classifySlices(*trace);
    facts->windows = facts::computePluginWindows(*trace, facts->kinds, GpuStepAnnotations::Ignore, rules);
    facts->links = CorrelationIndex(*trace, facts->kinds);
    facts->memory = MemoryTimeline(*trace);
    facts->trace = std::move(trace);
    return facts;
}

std::shared_ptr<const TraceFacts> sharedTraceFacts(const std::shared_ptr<const Trace>& trace, const StepRules& rules)
{
    using Facts = std::shared_ptr<const TraceFacts>;
    // Facts refer to their trace, so the table keeps neither strongly once they are built
    // (that would be a cycle); a build under way is shared through its future.
    struct Entry {
        std::weak_ptr<const Trace> trace;
        StepRules rules;
        std::weak_ptr<const TraceFacts> built;
        std::shared_future<Facts> building;
    };
    static std::mutex mutex;
    static std::vector<Entry> entries;

    // Called under the lock; the vector may have changed between two calls.
    const auto entryOfTrace = [&] {
        return std::find_if(entries.begin(), entries.end(),
                            [&](const Entry& e) { return e.trace.lock() == trace && e.rules == rules; });
    };
    std::promise<Facts> promise;
    std::shared_future<Facts> pending;
    {
        const std::lock_guard lock(mutex);
        std::erase_if(entries,
                      [](const Entry& e) { return e.trace.expired() || (!e.building.valid() && e.built.expired()); });
        const auto it = entryOfTrace();
        if (it != entries.end()) {
            if (auto facts = it->built.lock())
                return facts;
            pending = it->building;
        } else {
            entries.push_back({trace, rules, {}, promise.get_future().share()});
        }
    }
    if (pending.valid())
        return pending.get(); // rethrows the builder's failure
    const auto finish = [&](const Facts& built) {
        const std::lock_guard lock(mutex);
        const auto it = entryOfTrace();
        if (it == entries.end())
            return;
        if (!built) {
            entries.erase(it); // the next caller tries again
            return;
        }
        it->built = built;
        it->building = {}; // waiters hold their own copies of the future
    };
    Facts facts;
    try {
        facts = makeTraceFacts(trace, rules);
    } catch (...) {
        promise.set_exception(std::current_exception());
        finish(nullptr);
        throw;
    }
    promise.set_value(facts);
    finish(facts);
    return facts;
}

} // namespace ks::facts
