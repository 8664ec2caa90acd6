#include "core/gpu/stepbreakdown.h"

#include "core/gpu/intervalset.h"

#include <unordered_set>
#include <utility>

namespace ks::gpu {

namespace {

bool isCommunicationName(std::string_view name)
{
    for (std::string_view prefix : {"nccl:", "gloo:"}) {
        if (name.substr(0, prefix.size()) != prefix)
            continue;
        const std::string_view op = name.substr(prefix.size());
        return op == "broadcast" || op == "reduce" || op == "all_reduce" || op == "all_gather"
            || op == "reduce_scatter";
    }
    return false;
}

bool isDataLoaderName(std::string_view name)
{
    constexpr std::string_view kLoader = "enumerate(DataLoader)#";
    constexpr std::string_view kNext = ".__next__";
    constexpr std::string_view kPipe = "enumerate(DataPipe)#";
    if (name.substr(0, kPipe.size()) == kPipe)
        return true;
    return name.substr(0, kLoader.size()) == kLoader && name.size() >= kLoader.size() + kNext.size()
        && name.substr(name.size() - kNext.size()) == kNext;
}

bool isHostRangeKind(facts::PluginKind k)
{
    return k == facts::PluginKind::Operator || k == facts::PluginKind::Annotation
        || k == facts::PluginKind::GpuAnnotation || k == facts::PluginKind::Python;
}

} // namespace

std::string_view stepRoleName(StepRole role)
{
    static constexpr std::string_view kNames[kStepRoleCount] = {"Kernel",  "Memcpy",     "Memset",   "Communication",
                                                                "Runtime", "DataLoader", "CPU Exec", "Other"};
    return kNames[std::size_t(role)];
}

double StepBreakdownRow::percent(StepRole role) const
{
    return total > 0.0 ? 100.0 * parts[std::size_t(role)] / total : 0.0;
}

namespace {

constexpr StepRole kNoRole = StepRole(kStepRoleCount);

// What a slice counts as in the breakdown, kNoRole for what it leaves out.
class RoleOf {
public:
    RoleOf(const Trace& trace, const std::vector<facts::PluginKind>& kinds, const facts::PluginWindows& windows)
        : m_trace(trace)
        , m_kinds(kinds)
    {
        // Ranges that mark the steps (counter labels, the user's choice) are no role either,
        // like ProfilerStep's; an Optimizer.step range is work and keeps its role.
        if (windows.source == facts::StepSource::Labels || windows.source == facts::StepSource::User) {
            for (const auto& step : windows.steps) {
                if (step.slice != kNoSlice)
                    m_stepNames.insert(trace.slices().name[step.slice]);
            }
        }
        // External ids of communication ops: their kernels count as Communication, not Kernel.
        const auto& slices = trace.slices();
        for (SliceId s = 0; s < slices.size(); ++s) {
            if (isHostRangeKind(kinds[s]) && slices.externalId[s] != kNoId
                && isCommunicationName(trace.str(slices.name[s])))
                m_commExternalIds.insert(slices.externalId[s]);
        }
    }

    StepRole operator()(SliceId s) const
    {
        const facts::PluginKind kind = m_kinds[s];
        switch (kind) {
        case facts::PluginKind::Kernel:
            return m_commExternalIds.count(m_trace.slices().externalId[s]) ? StepRole::Communication : StepRole::Kernel;
        case facts::PluginKind::Memcpy: return StepRole::Memcpy;
        case facts::PluginKind::Memset: return StepRole::Memset;
        case facts::PluginKind::Runtime: return StepRole::Runtime;
        case facts::PluginKind::Operator:
        case facts::PluginKind::Annotation:
        case facts::PluginKind::GpuAnnotation:
        case facts::PluginKind::Python: {
            const std::string_view name = m_trace.str(m_trace.slices().name[s]);
            // Steps are never a role; with GpuStepAnnotations::Ignore their GPU-side copies
            // are left out as if the trace did not have them.
            if (kind != facts::PluginKind::Python
                && (facts::profilerStepNumber(name) >= 0 || m_stepNames.count(m_trace.slices().name[s])))
                return kNoRole;
            if (isCommunicationName(name))
                return StepRole::Communication;
            if (kind != facts::PluginKind::Python && isDataLoaderName(name))
                return StepRole::DataLoader;
            return StepRole::CpuExec;
        }
        default: return kNoRole;
        }
    }

private:
    const Trace& m_trace;
    const std::vector<facts::PluginKind>& m_kinds;
    std::unordered_set<std::int64_t> m_commExternalIds;
    std::unordered_set<StringId> m_stepNames;
};

struct RoleUnions {
    std::array<IntervalSet, kStepRoleCount> covered;
    std::array<bool, kStepRoleCount> seen{}; // a slice of the role, even an empty one
};

// The time each role covers. One lane at a time, from its outermost row in: a slice inside what
// its role already covers in the lane (most ops sit inside an op of the same role) adds
// nothing and is skipped, so what is held is the covered ranges, not an interval per slice.
RoleUnions unionsByRole(const Trace& trace, const RoleOf& roleOf)
{
    using Interval = IntervalSet::Interval;
    RoleUnions out;
    std::array<std::vector<Interval>, kStepRoleCount> lanesDone, rowAdds;
    std::array<IntervalSet, kStepRoleCount> lane;
    const auto endLane = [&] {
        for (std::size_t r = 0; r < kStepRoleCount; ++r) {
            lanesDone[r].insert(lanesDone[r].end(), lane[r].intervals().begin(), lane[r].intervals().end());
            lane[r] = {};
        }
    };
    const auto& slices = trace.slices();
    const Row* previous = nullptr;
    for (const Row& row : trace.rows()) {
        if (previous && (row.track != previous->track || row.lane != previous->lane))
            endLane();
        previous = &row;
        std::array<std::size_t, kStepRoleCount> at{}; // a row is sorted by start: each role's
            // covered ranges are walked once
        for (SliceId s = row.begin; s < row.end; ++s) {
            const StepRole role = roleOf(s);
            if (role == kNoRole)
                continue;
            const std::size_t r = std::size_t(role);
            out.seen[r] = true;
            const TimeNs start = slices.start[s], end = slices.end(s);
            const auto& covered = lane[r].intervals();
            std::size_t& i = at[r];
            while (i < covered.size() && covered[i].second < start)
                ++i;
            if (end <= start || (i < covered.size() && covered[i].first <= start && end <= covered[i].second))
                continue;
            rowAdds[r].emplace_back(start, end);
        }
        for (std::size_t r = 0; r < kStepRoleCount; ++r) {
            if (rowAdds[r].empty())
                continue;
            lane[r] = lane[r].united(IntervalSet::unionOf(std::move(rowAdds[r])));
            rowAdds[r] = {};
        }
    }
    endLane();
    for (std::size_t r = 0; r < kStepRoleCount; ++r)
        out.covered[r] = IntervalSet::unionOf(std::move(lanesDone[r]));
    return out;
}

} // namespace

StepBreakdown computeStepBreakdown(const Trace& trace, const std::vector<facts::PluginKind>& kinds,
                                   const facts::PluginWindows& windows, const BreakdownOptions& options)
{
    StepBreakdown result;
    RoleUnions roles = unionsByRole(trace, RoleOf(trace, kinds, windows));
    for (std::size_t r = 0; r <= std::size_t(StepRole::Memset); ++r)
        result.hasGpuColumns = result.hasGpuColumns || roles.seen[r];
    // Runtime calls also make the GPU columns appear (§5 Display).
    result.hasGpuColumns = result.hasGpuColumns || roles.seen[std::size_t(StepRole::Runtime)];
    result.hasCommunication = roles.seen[std::size_t(StepRole::Communication)];

    std::vector<IntervalSet::Interval> stepIntervals;
    for (const auto& step : windows.steps) {
        stepIntervals.emplace_back(step.start, step.end);
        StepBreakdownRow row;
        row.name = step.name;
        row.start = step.start;
        row.end = step.end;
        row.total = double(step.end - step.start);
        result.steps.push_back(std::move(row));
    }
    const IntervalSet allSteps = IntervalSet::unionOf(std::move(stepIntervals));
    const auto measureSteps = [&](StepRole role, const IntervalSet& part) {
        for (auto& row : result.steps)
            row.parts[std::size_t(role)] = double(part.measureWithin(row.start, row.end));
    };

    // Each role's part is measured in every step and dropped, with the role's covered time:
    // what is held is the roles not yet taken and the free time, not a part per role.
    IntervalSet free = options.pluginFreeTimeReset ? IntervalSet() : allSteps;
    for (std::size_t r = 0; r + 1 < kStepRoleCount; ++r) {
        IntervalSet part = std::exchange(roles.covered[r], {});
        if (options.pluginFreeTimeReset && free.empty())
            free = allSteps;
        else
            part = part.intersected(free);
        measureSteps(StepRole(r), part);
        free = free.subtracted(part);
    }
    measureSteps(StepRole::Other, free);

    result.average.name = "Average";
    if (!result.steps.empty()) {
        result.average.start = result.steps.front().start;
        result.average.end = result.steps.back().end;
        for (const auto& row : result.steps) {
            result.average.total += row.total;
            for (std::size_t r = 0; r < kStepRoleCount; ++r)
                result.average.parts[r] += row.parts[r];
        }
        const double n = double(result.steps.size());
        result.average.total /= n;
        for (auto& p : result.average.parts)
            p /= n;
    }
    return result;
}

} // namespace ks::gpu
