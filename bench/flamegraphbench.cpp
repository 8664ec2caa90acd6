// Flame graph repaint on the call tree of a trace of about 745k events (big.pt.trace.json.gz
// tiled by bench/tiler, or argv[1]), with Python frames and kernel leaves: the paint time of
// a 1920x1080 widget, by CPU and by GPU time, whole and zoomed (issue 38: <= 16 ms).
#include "bench/measure.h"
#include "bench/tiler/tracetiler.h"
#include "core/analysis/calltree.h"
#include "core/facts/tracefacts.h"
#include "widgets/flamegraphwidget.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>

using namespace ks;
using bench::Clock;
using bench::msSince;

namespace {

void timePaints(ks::FlameGraphWidget& flame, const char* what)
{
    QImage image(flame.size(), QImage::Format_ARGB32_Premultiplied);
    constexpr int kFrames = 20;
    double total = 0, worst = 0, cpuTotal = 0, cpuWorst = 0;
    for (int i = 0; i < kFrames; ++i) {
        const auto start = Clock::now();
        const double cpuStart = bench::cpuSeconds();
        flame.render(&image);
        const double ms = msSince(start), cpuMs = (bench::cpuSeconds() - cpuStart) * 1000.0;
        total += ms;
        worst = std::max(worst, ms);
        cpuTotal += cpuMs;
        cpuWorst = std::max(cpuWorst, cpuMs);
    }
    // CPU time too: on a shared machine the wall time says little.
    std::printf("paint %-34s wall mean %6.2f max %6.2f ms, CPU mean %6.2f max %6.2f ms\n", what, total / kFrames, worst,
                cpuTotal / kFrames, cpuWorst);
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    const auto trace = bench::loadBenchTrace(argc, argv, KS_BENCH_DATA);
    if (!trace)
        return 1;
    const auto facts = facts::makeTraceFacts(trace);
    analysis::CallTreeOptions options;
    options.python = true;
    options.gpuFrames = true;
    const analysis::CallTree tree = analysis::buildCallTree(*facts, options);
    std::printf("tree: %zu nodes\n", tree.size());
    FlameGraphWidget flame;
    flame.resize(1920, 1080);
    for (const auto time : {analysis::FoldedTime::Cpu, analysis::FoldedTime::Gpu}) {
        const auto start = Clock::now();
        const auto data = makeFlameGraphData(*trace, tree, time);
        std::printf("flame graph data (%s)                %8.1f ms\n",
                    time == analysis::FoldedTime::Cpu ? "CPU" : "GPU", msSince(start));
        flame.setData(data);
        timePaints(flame, time == analysis::FoldedTime::Cpu ? "CPU time, whole tree" : "GPU time, whole tree");
        flame.setSearchText(QStringLiteral("aten::"));
        timePaints(flame, "searching \"aten::\"");
        flame.setSearchText({});
        if (data->childCount(0) > 0) {
            flame.zoomTo(data->child(0, 0));
            timePaints(flame, "zoomed into the widest top frame");
        }
    }
    return 0;
}
