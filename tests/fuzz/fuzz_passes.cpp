// Everything computed over a loaded trace: the operator table (also grouped by input
// shapes, which decodes args) with its FLOPs per row, kernel statistics, range aggregates,
// the GPU report (metrics, step breakdown, nvprof summary) and Save As: the written file
// must reload with as many slices and instants as the trace had.
#include "tests/fuzz/fuzzsupport.h"

#include "core/analysis/opcosts.h"
#include "core/gpu/gpureport.h"
#include "core/stats/kernelstats.h"
#include "core/stats/operatortable.h"
#include "core/stats/rangeaggregates.h"
#include "core/writing/writer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <sstream>
#include <vector>

using namespace ks;

namespace {

void checkOperatorTable(const Trace& trace, bool byShapes)
{
    OperatorTableOptions options;
    options.groupByInputShapes = byShapes;
    const OperatorTable table = computeOperatorTable(trace, options);
    const auto costs = analysis::OpCosts::ofRows(trace, table.rows);
    const auto peaks = analysis::resolveDevicePeaks(trace);
    nlohmann::json names = nlohmann::json::array();
    for (const auto& row : table.rows) {
        const auto roofline = analysis::rooflineOfRow(row, costs, peaks);
        fuzz::check(!roofline.flops || *roofline.flops >= 0, "negative FLOPs");
        names.push_back({row.name, row.inputShapes, roofline.tflopsPerS.value_or(0.0)});
    }
    (void)names.dump(); // as `ops --json`: must not throw
}

void checkWriterRoundTrip(const Trace& trace)
{
    std::ostringstream written;
    const auto result = writeTraceJson(trace, written);
    fuzz::check(result.ok, "the writer failed on a loaded trace");
    LoadOptions options;
    options.readInBackgroundThread = false;
    const auto reloaded = loadTraceFromMemory(written.str(), "written.json", nullptr, options);
    if (!reloaded.ok())
        fuzz::fail("the written trace does not load: " + reloaded.fatal->located());
    if (reloaded.trace->slices().size() != trace.slices().size()
        || reloaded.trace->instants().size() != trace.instants().size())
        fuzz::fail("the written trace reloads with other counts: slices " + std::to_string(trace.slices().size())
                   + " -> " + std::to_string(reloaded.trace->slices().size()) + ", instants "
                   + std::to_string(trace.instants().size()) + " -> "
                   + std::to_string(reloaded.trace->instants().size()));
    fuzz::checkTextsAreValid(*reloaded.trace);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    LoadOptions options;
    options.readInBackgroundThread = false;
    const auto loaded =
        loadTraceFromMemory(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json", nullptr, options);
    if (!loaded.ok())
        return 0;
    const Trace& trace = *loaded.trace;
    checkOperatorTable(trace, false);
    checkOperatorTable(trace, true);
    nlohmann::json kernels = nlohmann::json::array();
    for (const auto& row : computeKernelStats(trace))
        kernels.push_back(row.name);
    (void)kernels.dump();
    std::vector<std::uint32_t> tracks(trace.tracks().size());
    for (std::uint32_t t = 0; t < tracks.size(); ++t)
        tracks[t] = t;
    (void)computeRangeAggregates(trace, trace.startTime(), trace.endTime(), tracks);
    (void)gpu::makeGpuReport(loaded.trace);
    checkWriterRoundTrip(trace);
    return 0;
}
