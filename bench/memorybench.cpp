// Memory analysis on a trace of about 745k events and 73k [memory] events (229 MB,
// big.pt.trace.json.gz tiled by bench/tiler; issue 39's target: 0.3 s): the memory timeline
// that TraceFacts reads once per trace, then what the Memory dock and `memory` compute from it
// (allocations paired with their ops, peaks, the Operator memory tables, what is alive at the
// peak).
#include "bench/measure.h"
#include "bench/tiler/tracetiler.h"
#include "core/analysis/memoryoptable.h"
#include "core/analysis/memoryreport.h"
#include "core/facts/memoryevents.h"

#include <cstdio>

using namespace ks;
using bench::Clock;
using bench::msSince;

int main(int argc, char** argv)
{
    const auto trace = bench::loadBenchTrace(argc, argv, KS_BENCH_DATA);
    if (!trace)
        return 1;
    auto start = Clock::now();
    const auto timelineCpu = bench::cpuSeconds();
    const MemoryTimeline timeline(*trace);
    std::printf("memory timeline (read once per trace) %8.1f ms (cpu %.1f ms)  (%zu [memory] events)\n", msSince(start),
                (bench::cpuSeconds() - timelineCpu) * 1000.0, timeline.size());
    const auto facts = facts::makeTraceFacts(trace);

    double best = 1e300;
    for (int run = 0; run < 3; ++run) {
        start = Clock::now();
        const auto cpu = bench::cpuSeconds();
        const analysis::MemoryReport report = analysis::makeMemoryReport(facts);
        const double reportMs = msSince(start);
        const auto tables = analysis::makeOperatorMemoryTables(report);
        const double tablesMs = msSince(start) - reportMs;
        std::size_t live = 0, allocations = 0, rows = 0;
        for (const auto& device : report.devices) {
            live += analysis::liveAllocations(device, device.peakEvent).size();
            allocations += device.allocations.size();
        }
        for (const auto& table : tables)
            rows += table.rows.size();
        const double totalMs = msSince(start);
        best = std::min(best, totalMs);
        std::printf("memory report %7.1f ms + operator memory %7.1f ms + alive at peaks = %7.1f ms (cpu %.1f ms): "
                    "%zu devices, %zu allocations, %zu alive at the peaks, %zu op rows\n",
                    reportMs, tablesMs, totalMs, (bench::cpuSeconds() - cpu) * 1000.0, report.devices.size(),
                    allocations, live, rows);
    }
    std::printf("best %.1f ms (target 300 ms)\n", best);
    return 0;
}
