#include "core/analysis/roofline.h"

#include <algorithm>

namespace ks::analysis {

Roofline computeRoofline(const facts::TraceFacts& facts, const OpCosts& costs, const PeakOverrides& overrides)
{
    const Trace& trace = *facts.trace;
    Roofline out;
    out.peaks = resolveDevicePeaks(trace, overrides);
    OperatorTableOptions options;
    options.groupByInputShapes = true;
    const OperatorTable table = computeOperatorTable(facts, options);
    for (const OperatorRow& row : table.rows) {
        const RowRoofline f = rooflineOfRow(row, costs, out.peaks);
        // Log-log: copies and lookups (no FLOPs) have no place on it.
        if (f.composite || !f.flops || *f.flops <= 0 || !f.bytes || *f.bytes <= 0 || !f.tflopsPerS
            || row.deviceTotal <= 0)
            continue;
        RooflinePoint p;
        p.name = row.name;
        p.shapes = row.inputShapes;
        p.roof = f.peakKind;
        p.flops = double(*f.flops);
        p.bytes = double(*f.bytes);
        p.deviceNs = double(row.deviceTotal);
        p.tflopsPerS = *f.tflopsPerS;
        p.flopsPerByte = p.flops / p.bytes;
        p.peakFraction = f.peakFraction;
        p.bound = f.bound;
        p.calls = row.calls;
        for (const SliceId op : row.slices) {
            for (const SliceId launch : facts.links.launchesOf(op)) {
                for (const SliceId gpuOp : facts.links.gpuOpsOf(launch)) {
                    if (facts.kinds[gpuOp] == facts::PluginKind::Kernel)
                        p.kernels.push_back(gpuOp);
                }
            }
        }
        // A kernel reached through both its runtime and its driver launch counts once.
        std::sort(p.kernels.begin(), p.kernels.end());
        p.kernels.erase(std::unique(p.kernels.begin(), p.kernels.end()), p.kernels.end());
        std::sort(p.kernels.begin(), p.kernels.end(), [&](SliceId a, SliceId b) {
            return std::pair(trace.slices().start[a], a) < std::pair(trace.slices().start[b], b);
        });
        out.points.push_back(std::move(p));
    }
    std::stable_sort(out.points.begin(), out.points.end(),
                     [](const RooflinePoint& a, const RooflinePoint& b) { return a.deviceNs > b.deviceNs; });
    return out;
}

} // namespace ks::analysis
