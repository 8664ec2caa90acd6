// Timeline rendering: paints the full 1920x1080 timeline (ruler, labels, every visible
// track) into a QImage for a ~745k-event trace (big.pt.trace.json.gz tiled by
// bench/tiler) and for the transformer fixture, fully zoomed out, at 10 zoom levels down
// to 1 µs and while panning. Targets (issue 3): median <= 16 ms per frame at every
// zoom, and large/transformer median ratio <= 2 (frame cost independent of trace size).
#include "bench/tiler/tracetiler.h"
#include "core/loader.h"
#include "core/tracklayout.h"
#include "widgets/timelinerenderer.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace ks;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kWidth = 1920;
constexpr int kHeight = 1080;
constexpr int kZoomLevels = 10;
constexpr int kFramesPerLevel = 15;
constexpr int kPanFrames = 60;

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct Figures {
    std::vector<double> levelMedians; // full zoom-out, then the 10 zoom levels
    std::vector<double> levelVisible; // visible span (ns) per level
    double panMedian = 0;
    std::vector<double> all;
};

class Bench {
public:
    explicit Bench(std::shared_ptr<const Trace> trace)
        : m_trace(std::move(trace))
        , m_image(kWidth, kHeight, QImage::Format_RGB32)
    {
        m_renderer.setTrace(m_trace);
        m_layout.build(*m_trace, {});
    }

    double frame(const TimeScale& scale)
    {
        m_state.scale = scale;
        const auto start = Clock::now();
        QPainter painter(&m_image);
        m_renderer.paint(painter, m_image.size(), m_layout, m_state);
        painter.end();
        return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    }

    Figures run()
    {
        Figures f;
        const int timeWidth = TimelineRenderer::timeAreaWidth(m_image.size());
        const TimeNs t0 = m_trace->startTime();
        const TimeNs span = m_trace->endTime() - t0;
        frame(TimeScale::fit(t0, m_trace->endTime(), timeWidth)); // warm caches and fonts

        std::vector<double> times;
        for (int i = 0; i < kFramesPerLevel; ++i)
            times.push_back(frame(TimeScale::fit(t0, m_trace->endTime(), timeWidth)));
        f.levelMedians.push_back(median(times));
        f.levelVisible.push_back(double(span));
        f.all.insert(f.all.end(), times.begin(), times.end());

        // 10 levels, geometric from a tenth of the trace down to 1 µs visible, each panned
        // across the trace so frames see different data.
        const double first = double(span) / 10.0, last = 1000.0;
        for (int level = 0; level < kZoomLevels; ++level) {
            const double visible = first * std::pow(last / first, level / double(kZoomLevels - 1));
            times.clear();
            for (int i = 0; i < kFramesPerLevel; ++i) {
                const TimeNs start = t0 + TimeNs((double(span) - visible) * (i + 0.5) / kFramesPerLevel);
                times.push_back(frame(TimeScale(start, visible / timeWidth)));
            }
            f.levelMedians.push_back(median(times));
            f.levelVisible.push_back(visible);
            f.all.insert(f.all.end(), times.begin(), times.end());
        }

        // Panning: 20 px per frame at a 1/50 zoom, as when dragging.
        times.clear();
        TimeScale scale(t0 + span / 3, double(span) / 50.0 / timeWidth);
        for (int i = 0; i < kPanFrames; ++i) {
            scale = scale.pannedBy(20);
            times.push_back(frame(scale));
        }
        f.panMedian = median(times);
        f.all.insert(f.all.end(), times.begin(), times.end());
        return f;
    }

private:
    std::shared_ptr<const Trace> m_trace;
    TimelineRenderer m_renderer;
    TrackLayout m_layout;
    TimelineViewState m_state;
    QImage m_image;
};

std::shared_ptr<const Trace> load(const std::string& path)
{
    LoadResult result = loadTraceFile(path);
    if (!result.ok()) {
        std::fprintf(stderr, "cannot load %s\n", path.c_str());
        std::exit(1);
    }
    std::printf("%s: %llu events, %zu slices\n", path.c_str(),
                static_cast<unsigned long long>(result.trace->traceEventCount()), result.trace->slices().size());
    return result.trace;
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const std::string largePath = argc > 1 ? argv[1] : bench::largeTracePath(KS_BENCH_DATA);
    const auto large = load(largePath);
    const auto small = load(std::string(KS_BENCH_DATA) + "/transformer.pt.trace.json.gz");

    const Figures big = Bench(large).run();
    const Figures ref = Bench(small).run();

    std::printf("\nframe %dx%d, median ms per frame (%d frames per level)\n", kWidth, kHeight, kFramesPerLevel);
    std::printf("%-22s %12s %14s %8s\n", "zoom (visible span)", "large ms", "transformer ms", "ratio");
    bool ok = true;
    for (std::size_t i = 0; i < big.levelMedians.size(); ++i) {
        const std::string label = i == 0 ? "full zoom-out" : formatDuration(TimeNs(big.levelVisible[i]));
        const double ratio = big.levelMedians[i] / std::max(ref.levelMedians[i], 1e-3);
        std::printf("%-22s %12.2f %14.2f %8.2f\n", label.c_str(), big.levelMedians[i], ref.levelMedians[i], ratio);
        ok = ok && big.levelMedians[i] <= 16.0;
    }
    std::printf("%-22s %12.2f %14.2f %8.2f\n", "panning (20 px/frame)", big.panMedian, ref.panMedian,
                big.panMedian / std::max(ref.panMedian, 1e-3));
    const double ratio = median(big.all) / std::max(median(ref.all), 1e-3);
    std::printf("overall median: large %.2f ms, transformer %.2f ms, ratio %.2f\n", median(big.all),
                median(ref.all), ratio);
    ok = ok && big.panMedian <= 16.0 && ratio <= 2.0;
    std::printf("targets (median <= 16 ms at every zoom, ratio <= 2): %s\n", ok ? "met" : "NOT met");
    return 0;
}
