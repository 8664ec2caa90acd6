#pragma once
// GPU Utilization, Est. SM Efficiency and Est. Achieved Occupancy (docs/gpu-metrics.md §3)
// per GPU, for the plugin's steps window or any other range, at any bucket width. Each
// metric is the integral of a step function built once per GPU, so a range costs a few
// binary searches however many kernels it holds.
#include "core/facts/stepwindows.h"
#include "core/gpu/stepfunction.h"

#include <optional>
#include <string>
#include <vector>

namespace ks::gpu {

struct RangeMetrics {
    double utilization = 0.0; // fraction 0..1
    std::optional<double> smEfficiency; // fraction 0..1; none without blocks-per-SM data
    std::optional<double> achievedOccupancy; // percent 0..100; none without occupancy data
};

// Bucketed series over [start, start + count·width); the last bucket may be longer.
struct MetricSeries {
    TimeNs start = 0;
    TimeNs bucketWidth = 0;
    std::vector<TimeNs> bucketStart; // count + 1 entries: the last is the series end
    std::vector<double> utilization; // fractions
    std::vector<double> smEfficiency; // fractions, NaN where none
    std::vector<double> achievedOccupancy; // percent, NaN where none
    std::size_t size() const { return utilization.size(); }
};

class GpuMetricIndex {
public:
    struct Counts {
        std::uint64_t kernels = 0;
        std::uint64_t withBlocksPerSm = 0;
        std::uint64_t withOccupancy = 0;
        std::uint64_t occupancyComputed = 0; // filled in by estAchievedOccupancyPct
    };

    GpuMetricIndex() = default;
    // Kernels of `device` only (args.device); `kinds` is classifySlices(trace).
    GpuMetricIndex(const Trace& trace, const std::vector<facts::PluginKind>& kinds, int device);

    int device() const { return m_device; }
    const Counts& counts() const { return m_counts; }

    RangeMetrics metrics(TimeNs start, TimeNs end) const;
    // `count` equal buckets over [start, end] (the last one absorbs the rounding).
    MetricSeries series(TimeNs start, TimeNs end, std::size_t count) const;
    // Buckets at the given boundaries (strictly increasing, at least two).
    MetricSeries seriesAt(std::vector<TimeNs> boundaries) const;

    // The plugin's segments: every gap between kernel endpoints where Σ blocks per SM > 0.
    const StepFunction& smEfficiencyFunction() const { return m_sm; }
    const StepFunction& busyFunction() const { return m_busy; }

private:
    int m_device = -1;
    Counts m_counts;
    StepFunction m_busy; // 1 where any kernel runs
    StepFunction m_sm; // min(1, Σ blocks per SM)
    StepFunction m_occCount; // number of running kernels that have an occupancy
    StepFunction m_occSum; // Σ occupancy % of those kernels
};

// Device indices that have at least one kernel, ascending.
std::vector<int> kernelDevices(const Trace& trace, const std::vector<facts::PluginKind>& kinds);

// The plugin's counter series (§4): bucket width and count over the global window.
struct PluginCounterBuckets {
    TimeNs width = 0; // a power of ten µs
    std::size_t count = 0;
    std::vector<TimeNs> boundaries; // count + 1 entries, the last is G1
};
PluginCounterBuckets pluginCounterBuckets(TimeNs globalStart, TimeNs globalEnd);

// Everything the GPU summary shows for one GPU over the plugin's steps window.
struct GpuSummaryMetrics {
    int device = -1;
    RangeMetrics steps; // over [S, E]
    MetricSeries counters; // the plugin's utilization counter buckets
    std::size_t smSegments = 0; // SM-efficiency counter segments
};

// Per GPU with kernels, ascending.
struct GpuAnalysis {
    facts::PluginWindows windows;
    std::vector<GpuMetricIndex> gpus;
    std::vector<GpuSummaryMetrics> summaries;
    const GpuMetricIndex* gpu(int device) const;
};
GpuAnalysis analyzeGpus(const Trace& trace, facts::GpuStepAnnotations gpuSteps = facts::GpuStepAnnotations::Ignore);
// The same from the trace's kinds and windows (e.g. TraceFacts::kinds and ::windows).
GpuAnalysis analyzeGpus(const Trace& trace, const std::vector<facts::PluginKind>& kinds, facts::PluginWindows windows);

// The GPU summary's display: Python's round(x, 2) printed as a float, "4.9 %", "100.0 %".
std::string formatPluginPercent(double percent);
// "139.8 GB" (GiB, one decimal, as the plugin prints totalGlobalMem).
std::string formatDeviceMemory(std::int64_t bytes);

} // namespace ks::gpu
