// Statistics and the writer on a trace of about 745k events (big.pt.trace.json.gz tiled by
// bench/tiler): operator table (whole trace and a 10 % range, what a range change in the
// GUI costs), the FLOP columns (issue 37: the per-trace costs once, then at most 10 % on top
// of each table), kernel view, range aggregates, and writing .json / .json.gz.
#include "bench/measure.h"
#include "bench/tiler/tracetiler.h"
#include "core/analysis/opcosts.h"
#include "core/loading/loader.h"
#include "core/stats/kernelstats.h"
#include "core/stats/operatortable.h"
#include "core/stats/rangeaggregates.h"
#include "core/writing/writer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace ks;
using bench::Clock;
using bench::msSince;

namespace {

void benchWrite(const Trace& trace, const std::string& path)
{
    const auto start = Clock::now();
    const TraceWriteResult result = writeTraceFile(trace, path);
    const double ms = msSince(start);
    if (!result.ok) {
        std::printf("write %s failed: %s\n", path.c_str(), result.error.c_str());
        return;
    }
    const double mb = double(std::filesystem::file_size(path)) / 1e6;
    std::printf("write %-28s %8.0f ms  %7.1f MB written  %6.1f MB/s  %.0f events/s\n",
                std::filesystem::path(path).filename().c_str(), ms, mb, mb / (ms / 1000),
                double(result.eventsWritten) / (ms / 1000));
    std::filesystem::remove(path);
}

} // namespace

int main(int argc, char** argv)
{
    const auto loaded = bench::loadBenchTrace(argc, argv, KS_BENCH_DATA);
    if (!loaded)
        return 1;
    const Trace& trace = *loaded;

    // The table and the per-trace FLOP costs in turns, kRuns each: medians of wall and CPU
    // time (the shared machine's load moves wall times, CPU times less), and the ratio of each
    // turn's pass to its table, with its spread.
    constexpr int kRuns = 9;
    std::vector<double> tableWall, tableCpu, costsWall, costsCpu, ratioCpu;
    OperatorTable table;
    analysis::OpCosts costs;
    for (int run = 0; run < kRuns; ++run) {
        bench::Since since;
        table = computeOperatorTable(trace);
        tableWall.push_back(since.wallMs());
        tableCpu.push_back(since.cpuMs());
        // What the FLOP columns cost (issue 37): the costs of the trace's ops with a rule, from
        // the shape args the loader kept (texts read back only for ops without), once per
        // trace (the Operators dock keeps them).
        since = bench::Since();
        costs = analysis::OpCosts::ofTrace(trace);
        costsWall.push_back(since.wallMs());
        costsCpu.push_back(since.cpuMs());
        ratioCpu.push_back(100.0 * costsCpu.back() / tableCpu.back());
    }
    const double tableMs = bench::median(tableWall), tableCpuMs = bench::median(tableCpu);
    std::printf("operator table, whole trace      %8.1f ms  %8.1f ms CPU  (%zu rows; medians of %d)\n", tableMs,
                tableCpuMs, table.rows.size(), kRuns);
    std::printf("  FLOP costs of the ops, once    %8.1f ms  %8.1f ms CPU  (%.1f %% of the table's wall, %.1f %% of "
                "its CPU time)\n",
                bench::median(costsWall), bench::median(costsCpu), 100.0 * bench::median(costsWall) / tableMs,
                100.0 * bench::median(costsCpu) / tableCpuMs);
    std::printf("  FLOP pass / operator table, CPU, per turn: median %.1f %% (%.1f-%.1f %% over %d alternated turns; "
                "target <= 10 %%)\n",
                bench::median(ratioCpu), *std::min_element(ratioCpu.begin(), ratioCpu.end()),
                *std::max_element(ratioCpu.begin(), ratioCpu.end()), kRuns);
    std::size_t cpuOps = 0, readBack = 0;
    for (SliceId s = 0; s < trace.slices().size(); ++s) {
        if (trace.classOf(s) == SliceClass::CpuOp) {
            ++cpuOps;
            readBack += trace.slices().shapeArgs[s] == kNoIndex ? 1 : 0;
        }
    }
    std::printf("  shape args kept by the loader: %zu distinct (%.1f KB) for %zu CPU ops, %zu ops without (read "
                "back)\n",
                trace.shapeArgs().size(), double(trace.shapeArgs().memoryBytes()) / 1e3, cpuOps, readBack);
    // Then for each table only its rows against the device's roofs.
    auto flopsStart = Clock::now();
    const auto peaks = analysis::resolveDevicePeaks(trace);
    std::size_t withFlops = 0;
    for (const auto& row : table.rows)
        withFlops += analysis::rooflineOfRow(row, costs, peaks).hasFlops() ? 1 : 0;
    const double rowsMs = msSince(flopsStart);
    std::printf("  + FLOP columns of the table    %8.1f ms  (%zu rows with FLOPs, %.1f %% of the table's time)\n",
                rowsMs, withFlops, 100.0 * rowsMs / tableMs);

    const TimeNs span = trace.endTime() - trace.startTime();
    OperatorTableOptions range;
    range.rangeStart = trace.startTime() + span / 2;
    range.rangeEnd = range.rangeStart + span / 10;
    auto start = Clock::now();
    const OperatorTable part = computeOperatorTable(trace, range);
    std::printf("operator table, 10%% range        %8.1f ms  (%zu rows)\n", msSince(start), part.rows.size());

    start = Clock::now();
    const auto kernels = computeKernelStats(trace);
    std::printf("kernel view, whole trace         %8.1f ms  (%zu rows)\n", msSince(start), kernels.size());

    std::vector<std::uint32_t> tracks(trace.tracks().size());
    for (std::uint32_t t = 0; t < tracks.size(); ++t)
        tracks[t] = t;
    start = Clock::now();
    const auto aggregates = computeRangeAggregates(trace, range.rangeStart, range.rangeEnd, tracks);
    std::printf("range aggregates, 10%% x all     %8.1f ms  (%zu names)\n", msSince(start), aggregates.rows.size());

    const auto dir = std::filesystem::temp_directory_path();
    benchWrite(trace, (dir / "ks_statsbench.pt.trace.json").string());
    benchWrite(trace, (dir / "ks_statsbench.pt.trace.json.gz").string());
    return 0;
}
