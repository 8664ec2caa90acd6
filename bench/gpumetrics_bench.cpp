// GPU metric overlays: the three metrics for a visible range at 1000 buckets on a trace
// of about 745k events (big.pt.trace.json.gz tiled by bench/tiler), the work redone on
// every zoom or pan. Target (issue 5): <= 2 ms per range.
#include "bench/measure.h"
#include "bench/tiler/tracetiler.h"
#include "core/gpu/gpumetrics.h"
#include "core/loading/loader.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace ks;
using bench::Clock;
using bench::msSince;

int main(int argc, char** argv)
{
    const auto loaded = bench::loadBenchTrace(argc, argv, KS_BENCH_DATA);
    if (!loaded)
        return 1;
    const Trace& trace = *loaded;

    auto start = Clock::now();
    const gpu::GpuAnalysis analysis = gpu::analyzeGpus(trace);
    std::printf("analysis (windows + per-GPU index): %.1f ms\n", msSince(start));
    if (analysis.gpus.empty())
        return 1;
    const gpu::GpuMetricIndex& index = analysis.gpus.front();
    std::printf("GPU %d: %llu kernels, whole-trace utilization %.2f %%\n", index.device(),
                static_cast<unsigned long long>(index.counts().kernels),
                100.0 * analysis.summaries[0].steps.utilization);

    const TimeNs t0 = trace.startTime(), span = trace.endTime() - trace.startTime();
    constexpr std::size_t kBuckets = 1000;
    constexpr int kRepeats = 200;
    for (double fraction : {1.0, 0.25, 0.01, 0.0001}) {
        std::vector<double> times;
        volatile double sink = 0; // keeps the series from being optimised away
        for (int r = 0; r < kRepeats; ++r) {
            // Pan across the trace so every call sees a different range.
            const TimeNs width = std::max<TimeNs>(TimeNs(double(span) * fraction), TimeNs(kBuckets));
            const TimeNs a = t0 + (span - width) * r / kRepeats;
            const auto callStart = Clock::now();
            const gpu::MetricSeries series = index.series(a, a + width, kBuckets);
            times.push_back(msSince(callStart));
            sink = sink + series.utilization[kBuckets / 2];
        }
        std::sort(times.begin(), times.end());
        std::printf("visible range %8.4f %% of %s, %zu buckets: median %.3f ms, max %.3f ms (target <= 2 ms)\n",
                    100.0 * fraction, formatDuration(span).c_str(), kBuckets, times[times.size() / 2], times.back());
    }
    return 0;
}
