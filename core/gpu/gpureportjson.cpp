#include "core/gpu/gpureportjson.h"

#include "core/facts/stepwindows.h"

namespace ks::gpu {

namespace {

nlohmann::json optionalPct(const std::optional<double>& v, double scale)
{
    return v ? nlohmann::json(*v * scale) : nlohmann::json(nullptr);
}

nlohmann::json breakdownRowJson(const StepBreakdownRow& row)
{
    nlohmann::json j{{"name", row.name},
                     {"start_us", toMicros(double(row.start))},
                     {"end_us", toMicros(double(row.end))},
                     {"total_us", toMicros(row.total)}};
    for (std::size_t r = 0; r < kStepRoleCount; ++r) {
        const std::string key(stepRoleName(StepRole(r)));
        j["parts_us"][key] = toMicros(row.parts[r]);
        j["parts_pct"][key] = row.percent(StepRole(r));
    }
    return j;
}

nlohmann::json nvprofRowsJson(const std::vector<NvprofRow>& rows)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rows) {
        nlohmann::json j{{"name", r.name},
                         {"time_pct", r.timePercent},
                         {"time_us", toMicros(double(r.total))},
                         {"calls", r.calls},
                         {"avg_us", toMicros(r.average())},
                         {"min_us", toMicros(double(r.min))},
                         {"max_us", toMicros(double(r.max))}};
        if (r.bytes >= 0)
            j["bytes"] = r.bytes;
        out.push_back(std::move(j));
    }
    return out;
}

} // namespace

GpuReportParts computeGpuReportParts(const Trace& trace, bool pluginCompat, const facts::StepRules& steps)
{
    const auto gpuSteps = pluginCompat ? facts::GpuStepAnnotations::AsSteps : facts::GpuStepAnnotations::Ignore;
    const std::vector<facts::PluginKind> kinds = facts::classifySlices(trace); // once for all three
    GpuReportParts parts{analyzeGpus(trace, kinds, facts::computePluginWindows(trace, kinds, gpuSteps, steps)), {}, {}};
    BreakdownOptions breakdownOptions;
    breakdownOptions.pluginFreeTimeReset = pluginCompat;
    parts.breakdown = computeStepBreakdown(trace, kinds, parts.analysis.windows, breakdownOptions);
    parts.nvprof = computeNvprofSummary(trace, kinds);
    return parts;
}

nlohmann::json gpuReportJson(const Trace& trace, const GpuReportParts& parts)
{
    const GpuAnalysis& a = parts.analysis;
    const StepBreakdown& b = parts.breakdown;
    const NvprofSummary& nv = parts.nvprof;
    const auto& w = a.windows;
    nlohmann::json j;
    j["window"] = {{"steps_start_us", toMicros(double(w.stepsStart))},
                   {"steps_end_us", toMicros(double(w.stepsEnd))},
                   {"steps_span_us", toMicros(double(w.stepsSpan()))},
                   {"global_start_us", toMicros(double(w.globalStart))},
                   {"global_end_us", toMicros(double(w.globalEnd))},
                   {"global_span_us", toMicros(double(w.globalSpan()))},
                   {"steps", w.steps.size()},
                   {"steps_source", w.sourceName},
                   {"has_profiler_steps", w.hasProfilerSteps}};
    j["steps"] = w.source == facts::StepSource::None ? 0 : w.steps.size();
    j["steps_source"] = w.sourceName;
    j["gpus"] = nlohmann::json::array();
    for (const auto& s : a.summaries) {
        const DeviceProperties* d = trace.deviceFor(s.device);
        const auto* index = a.gpu(s.device);
        nlohmann::json g{{"device", s.device},
                         {"name", d ? d->name : std::string()},
                         {"memory_bytes", d ? d->totalGlobalMem : 0},
                         {"compute_capability", computeCapability(d)},
                         {"kernels", index->counts().kernels},
                         {"utilization_pct", s.steps.utilization * 100.0},
                         {"sm_efficiency_pct", optionalPct(s.steps.smEfficiency, 100.0)},
                         {"achieved_occupancy_pct", optionalPct(s.steps.achievedOccupancy, 1.0)},
                         {"counter_bucket_us", toMicros(double(s.counters.bucketWidth))},
                         {"sm_efficiency_segments", s.smSegments}};
        nlohmann::json series = nlohmann::json::array();
        for (std::size_t i = 0; i < s.counters.size(); ++i)
            series.push_back({toMicros(double(s.counters.bucketStart[i])), s.counters.utilization[i]});
        g["utilization_counter"] = std::move(series);
        j["gpus"].push_back(std::move(g));
    }
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& row : b.steps)
        steps.push_back(breakdownRowJson(row));
    j["step_breakdown"] = {{"steps", std::move(steps)},
                           {"average", breakdownRowJson(b.average)},
                           {"has_gpu_columns", b.hasGpuColumns},
                           {"has_communication", b.hasCommunication}};
    j["nvprof"] = {{"gpu_activities", nvprofRowsJson(nv.gpuActivities)}, {"api_calls", nvprofRowsJson(nv.apiCalls)}};
    return j;
}

std::string computeCapability(const DeviceProperties* d)
{
    return d ? std::to_string(d->computeMajor) + "." + std::to_string(d->computeMinor) : std::string();
}

} // namespace ks::gpu
