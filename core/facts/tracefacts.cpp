#include "core/facts/tracefacts.h"

#include "core/model/saturating.h"

#include <algorithm>
#include <future>
#include <mutex>

namespace ks::facts {

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
