#include "core/gpu/stepbreakdown.h"

#include "core/gpu/intervalset.h"

#include <unordered_set>

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

bool isHostRangeKind(PluginKind k)
{
    return k == PluginKind::Operator || k == PluginKind::Annotation || k == PluginKind::GpuAnnotation
        || k == PluginKind::Python;
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

StepBreakdown computeStepBreakdown(const Trace& trace, const std::vector<PluginKind>& kinds,
                                   const PluginWindows& windows, const BreakdownOptions& options)
{
    const auto& slices = trace.slices();
    StepBreakdown result;

    // External ids of communication ops: their kernels count as Communication, not Kernel.
    std::unordered_set<std::int64_t> commExternalIds;
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (isHostRangeKind(kinds[s]) && slices.externalId[s] != kNoId
            && isCommunicationName(trace.str(slices.name[s])))
            commExternalIds.insert(slices.externalId[s]);
    }

    std::array<std::vector<IntervalSet::Interval>, kStepRoleCount> roleIntervals;
    for (SliceId s = 0; s < slices.size(); ++s) {
        const PluginKind kind = kinds[s];
        const IntervalSet::Interval iv{slices.start[s], slices.end(s)};
        StepRole role;
        switch (kind) {
        case PluginKind::Kernel:
            role = commExternalIds.count(slices.externalId[s]) ? StepRole::Communication : StepRole::Kernel;
            break;
        case PluginKind::Memcpy: role = StepRole::Memcpy; break;
        case PluginKind::Memset: role = StepRole::Memset; break;
        case PluginKind::Runtime: role = StepRole::Runtime; break;
        case PluginKind::Operator:
        case PluginKind::Annotation:
        case PluginKind::GpuAnnotation:
        case PluginKind::Python: {
            const std::string_view name = trace.str(slices.name[s]);
            // Steps are never a role; with GpuStepAnnotations::Ignore their GPU-side copies
            // are left out as if the trace did not have them.
            if (profilerStepNumber(name) >= 0 && kind != PluginKind::Python)
                continue;
            if (isCommunicationName(name))
                role = StepRole::Communication;
            else if (kind != PluginKind::Python && isDataLoaderName(name))
                role = StepRole::DataLoader;
            else
                role = StepRole::CpuExec;
            break;
        }
        default: continue;
        }
        if (role <= StepRole::Memset)
            result.hasGpuColumns = true;
        roleIntervals[std::size_t(role)].push_back(iv);
    }
    // Runtime calls also make the GPU columns appear (§5 Display).
    result.hasGpuColumns = result.hasGpuColumns || !roleIntervals[std::size_t(StepRole::Runtime)].empty();
    result.hasCommunication = !roleIntervals[std::size_t(StepRole::Communication)].empty();

    std::vector<IntervalSet::Interval> stepIntervals;
    for (const auto& step : windows.steps)
        stepIntervals.emplace_back(step.start, step.end);
    const IntervalSet allSteps = IntervalSet::unionOf(stepIntervals);

    std::array<IntervalSet, kStepRoleCount> parts;
    IntervalSet free = options.pluginFreeTimeReset ? IntervalSet() : allSteps;
    for (std::size_t r = 0; r + 1 < kStepRoleCount; ++r) {
        const IntervalSet role = IntervalSet::unionOf(std::move(roleIntervals[r]));
        if (options.pluginFreeTimeReset && free.empty()) {
            parts[r] = role;
            free = allSteps;
        } else {
            parts[r] = role.intersected(free);
        }
        free = free.subtracted(parts[r]);
    }
    parts[std::size_t(StepRole::Other)] = free;

    for (const auto& step : windows.steps) {
        StepBreakdownRow row;
        row.name = step.name;
        row.start = step.start;
        row.end = step.end;
        row.total = double(step.end - step.start);
        for (std::size_t r = 0; r < kStepRoleCount; ++r)
            row.parts[r] = double(parts[r].measureWithin(step.start, step.end));
        result.steps.push_back(std::move(row));
    }

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
