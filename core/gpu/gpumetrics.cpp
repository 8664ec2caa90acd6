#include "core/gpu/gpumetrics.h"

#include "core/gpu/occupancy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <utility>

namespace ks::gpu {

namespace {

// Weights are integers so the running sums return exactly to zero between kernels.
constexpr double kBlocksPerSmScale = 1e6; // kineto prints blocks per SM with 6 decimals
constexpr double kOccupancyScale = 1e3;
// Clamps before scaling: llround of a float beyond int64 (a crafted trace) is undefined.
// One SM never holds more than 32 blocks, so any value above this saturates it just the same;
// an occupancy is a share of the SM's threads, at most 100 % by construction.
constexpr double kMaxBlocksPerSm = 1e6;
constexpr double kMaxOccupancyPct = 100.0;

} // namespace

GpuMetricIndex::GpuMetricIndex(const Trace& trace, const std::vector<facts::PluginKind>& kinds, int device)
    : m_device(device)
{
    const auto& slices = trace.slices();
    const DeviceProperties* props = trace.deviceFor(device);
    // This GPU's kernels with what the functions weigh them by, read once; then the four
    // functions one after the other: only one function's edges exist at a time.
    struct Kernel {
        SliceId slice;
        float blocksPerSm;
        double occupancyPct; // negative: none
    };
    std::vector<Kernel> kernels;
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (kinds[s] != facts::PluginKind::Kernel)
            continue;
        const GpuOpInfo* op = trace.gpuOpInfo(s);
        if (!op || op->device != device)
            continue;
        double pct = op->estAchievedOccupancyPct;
        if (pct < 0.0 && props) {
            if (const auto launch = kernelLaunchOf(*op, props)) {
                if (const auto computed = estAchievedOccupancyPct(*props, *launch)) {
                    pct = *computed;
                    ++m_counts.occupancyComputed;
                }
            }
        }
        m_counts.withBlocksPerSm += op->blocksPerSm > 0.0f;
        m_counts.withOccupancy += pct >= 0.0;
        kernels.push_back({s, op->blocksPerSm, pct});
    }
    m_counts.kernels = kernels.size();

    const auto sweep = [&](auto weightOf, const StepFunction::ValueOf& valueOf) {
        StepEdges edges(kernels.size());
        for (const Kernel& k : kernels)
            edges.add(slices.start[k.slice], slices.end(k.slice), weightOf(k));
        return StepFunction::fromEdges(std::move(edges), valueOf);
    };
    m_busy = sweep([](const Kernel&) { return std::int64_t(1); }, [](std::int64_t) { return 1.0; });
    m_sm = sweep(
        [](const Kernel& k) -> std::int64_t {
            if (!(k.blocksPerSm > 0.0f))
                return 0;
            // "inf" (unknown SM count) saturates the SM at once.
            return std::llround((std::isfinite(k.blocksPerSm) ? std::min(double(k.blocksPerSm), kMaxBlocksPerSm) : 1.0)
                                * kBlocksPerSmScale);
        },
        [](std::int64_t sum) { return std::min(1.0, double(sum) / kBlocksPerSmScale); });
    m_occCount = sweep([](const Kernel& k) { return std::int64_t(k.occupancyPct >= 0.0); },
                       [](std::int64_t n) { return double(n); });
    m_occSum = sweep(
        [](const Kernel& k) {
            return k.occupancyPct >= 0.0 ? std::llround(std::min(k.occupancyPct, kMaxOccupancyPct) * kOccupancyScale)
                                         : std::int64_t(0);
        },
        [](std::int64_t sum) { return double(sum) / kOccupancyScale; });
}

RangeMetrics GpuMetricIndex::metrics(TimeNs start, TimeNs end) const
{
    RangeMetrics m;
    if (end <= start)
        return m;
    const double width = double(end - start);
    m.utilization = m_busy.integral(start, end) / width;
    const double sm = m_sm.integral(start, end);
    if (sm > 0.0)
        m.smEfficiency = sm / width;
    const double weight = m_occCount.integral(start, end);
    if (weight > 0.0)
        m.achievedOccupancy = m_occSum.integral(start, end) / weight;
    return m;
}

MetricSeries GpuMetricIndex::series(TimeNs start, TimeNs end, std::size_t count) const
{
    count = std::max<std::size_t>(count, 1);
    end = std::max(end, start + TimeNs(count));
    const TimeNs width = (end - start) / TimeNs(count);
    std::vector<TimeNs> boundaries(count + 1);
    for (std::size_t i = 0; i < count; ++i)
        boundaries[i] = start + TimeNs(i) * width;
    boundaries[count] = end;
    MetricSeries out = seriesAt(std::move(boundaries));
    out.bucketWidth = width;
    return out;
}

MetricSeries GpuMetricIndex::seriesAt(std::vector<TimeNs> boundaries) const
{
    MetricSeries out;
    if (boundaries.size() < 2)
        return out;
    const std::size_t n = boundaries.size() - 1;
    out.start = boundaries.front();
    out.bucketWidth = boundaries[1] - boundaries[0];
    out.utilization.resize(n);
    out.smEfficiency.resize(n);
    out.achievedOccupancy.resize(n);
    // One primitive per boundary and function: consecutive buckets share their edges.
    double busyPrev = m_busy.primitive(boundaries[0]);
    double smPrev = m_sm.primitive(boundaries[0]);
    double countPrev = m_occCount.primitive(boundaries[0]);
    double sumPrev = m_occSum.primitive(boundaries[0]);
    constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < n; ++i) {
        const TimeNs b = boundaries[i + 1];
        const double width = double(b - boundaries[i]);
        const double busy = m_busy.primitive(b), sm = m_sm.primitive(b);
        const double count = m_occCount.primitive(b), sum = m_occSum.primitive(b);
        out.utilization[i] = width > 0 ? (busy - busyPrev) / width : 0.0;
        out.smEfficiency[i] = width > 0 && sm > smPrev ? (sm - smPrev) / width : kNone;
        out.achievedOccupancy[i] = count > countPrev ? (sum - sumPrev) / (count - countPrev) : kNone;
        busyPrev = busy;
        smPrev = sm;
        countPrev = count;
        sumPrev = sum;
    }
    out.bucketStart = std::move(boundaries);
    return out;
}

std::vector<int> kernelDevices(const Trace& trace, const std::vector<facts::PluginKind>& kinds)
{
    std::set<int> devices;
    for (SliceId s = 0; s < trace.slices().size(); ++s) {
        if (kinds[s] != facts::PluginKind::Kernel)
            continue;
        if (const GpuOpInfo* op = trace.gpuOpInfo(s); op && op->device >= 0)
            devices.insert(op->device);
    }
    return {devices.begin(), devices.end()};
}

PluginCounterBuckets pluginCounterBuckets(TimeNs globalStart, TimeNs globalEnd)
{
    PluginCounterBuckets b;
    b.width = 1000; // 1 µs
    TimeNs span = 0;
    if (globalEnd <= globalStart || __builtin_sub_overflow(globalEnd, globalStart, &span))
        return b; // empty, or wider than int64 (a crafted trace)
    // span > 100 · width, without the multiplication that overflows for absurd spans.
    while ((span - 1) / 100 >= b.width)
        b.width *= 10;
    b.count = std::size_t(span / b.width);
    if (b.count == 0)
        return b;
    b.boundaries.resize(b.count + 1);
    for (std::size_t i = 0; i < b.count; ++i)
        b.boundaries[i] = globalStart + TimeNs(i) * b.width;
    b.boundaries[b.count] = globalEnd; // the last bucket runs to G1
    return b;
}

const GpuMetricIndex* GpuAnalysis::gpu(int device) const
{
    for (const auto& g : gpus) {
        if (g.device() == device)
            return &g;
    }
    return nullptr;
}

GpuAnalysis analyzeGpus(const Trace& trace, facts::GpuStepAnnotations gpuSteps)
{
    const std::vector<facts::PluginKind> kinds = facts::classifySlices(trace);
    return analyzeGpus(trace, kinds, facts::computePluginWindows(trace, kinds, gpuSteps));
}

GpuAnalysis analyzeGpus(const Trace& trace, const std::vector<facts::PluginKind>& kinds, facts::PluginWindows windows)
{
    GpuAnalysis a;
    a.windows = std::move(windows);
    const PluginCounterBuckets buckets = pluginCounterBuckets(a.windows.globalStart, a.windows.globalEnd);
    for (int device : kernelDevices(trace, kinds)) {
        a.gpus.emplace_back(trace, kinds, device);
        const GpuMetricIndex& index = a.gpus.back();
        GpuSummaryMetrics s;
        s.device = device;
        s.steps = index.metrics(a.windows.stepsStart, a.windows.stepsEnd);
        if (buckets.count > 0) {
            s.counters = index.seriesAt(buckets.boundaries);
            s.counters.bucketWidth = buckets.width;
        }
        const StepFunction& sm = index.smEfficiencyFunction();
        for (std::size_t i = 0; i < sm.pieceCount(); ++i)
            s.smSegments += sm.pieceValue(i) > 0.0 ? 1 : 0;
        a.summaries.push_back(std::move(s));
    }
    return a;
}

std::string formatPluginPercent(double percent)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.2f", percent);
    std::string s(text);
    // Python prints the shortest float: drop trailing zeros but keep one decimal.
    while (s.size() > 2 && s.back() == '0' && s[s.size() - 2] != '.')
        s.pop_back();
    return s + " %";
}

std::string formatDeviceMemory(std::int64_t bytes)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.1f GB", double(bytes) / (1024.0 * 1024.0 * 1024.0));
    return text;
}

} // namespace ks::gpu
