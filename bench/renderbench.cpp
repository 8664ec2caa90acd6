// Timeline rendering: paints the full 1920x1080 timeline (ruler, labels, every visible
// track) into a QImage for a ~745k-event trace (big.pt.trace.json.gz tiled by
// bench/tiler) and for the transformer fixture, fully zoomed out, at 10 zoom levels down
// to 1 µs and while panning. Targets (issue 3): median <= 16 ms per frame at every
// zoom, and large/transformer median ratio <= 2 (frame cost independent of trace size).
#include "bench/tiler/tracetiler.h"
#include "core/loading/loader.h"
#include "core/timeline/tracklayout.h"
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
constexpr int kFramesPerLevel = 31;
constexpr int kPanFrames = 61;

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// The frames to paint, grouped: full zoom-out, 10 zoom levels, panning.
struct FramePlan {
    std::vector<std::string> groupNames;
    std::vector<std::size_t> group; // per frame
    std::vector<TimeScale> scales; // per frame
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

    FramePlan plan() const
    {
        FramePlan plan;
        const int timeWidth = TimelineRenderer::timeAreaWidth(m_image.size());
        const TimeNs t0 = m_trace->startTime();
        const TimeNs span = m_trace->endTime() - t0;
        const auto add = [&](const TimeScale& scale) {
            plan.group.push_back(plan.groupNames.size() - 1);
            plan.scales.push_back(scale);
        };
        plan.groupNames.push_back("full zoom-out");
        for (int i = 0; i < kFramesPerLevel; ++i)
            add(TimeScale::fit(t0, m_trace->endTime(), timeWidth));
        // 10 levels, geometric from a tenth of the trace down to 1 µs visible, each panned
        // across the trace so frames see different data.
        const double first = double(span) / 10.0, last = 1000.0;
        for (int level = 0; level < kZoomLevels; ++level) {
            const double visible = first * std::pow(last / first, level / double(kZoomLevels - 1));
            plan.groupNames.push_back(formatDuration(TimeNs(visible)) + " visible");
            for (int i = 0; i < kFramesPerLevel; ++i) {
                const TimeNs start = t0 + TimeNs((double(span) - visible) * (i + 0.5) / kFramesPerLevel);
                add(TimeScale(start, visible / timeWidth));
            }
        }
        // Panning: 20 px per frame at a 1/50 zoom, as when dragging.
        plan.groupNames.push_back("panning 20 px/frame");
        TimeScale scale(t0 + span / 3, double(span) / 50.0 / timeWidth);
        for (int i = 0; i < kPanFrames; ++i) {
            scale = scale.pannedBy(20);
            add(scale);
        }
        return plan;
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

    Bench big(large), ref(small);
    const FramePlan bigPlan = big.plan(), refPlan = ref.plan();
    big.frame(bigPlan.scales.front()); // warm caches and fonts
    ref.frame(refPlan.scales.front());
    // Frames of the two traces alternate, so load from other processes hits both alike.
    const std::size_t groups = bigPlan.groupNames.size();
    std::vector<std::vector<double>> bigTimes(groups), refTimes(groups);
    std::vector<double> bigAll, refAll;
    for (std::size_t k = 0; k < bigPlan.scales.size(); ++k) {
        const double b = big.frame(bigPlan.scales[k]);
        const double r = ref.frame(refPlan.scales[k]);
        bigTimes[bigPlan.group[k]].push_back(b);
        refTimes[refPlan.group[k]].push_back(r);
        bigAll.push_back(b);
        refAll.push_back(r);
    }

    std::printf("\nframe %dx%d, median ms per frame (%d frames per zoom level, %d panning)\n", kWidth, kHeight,
                kFramesPerLevel, kPanFrames);
    std::printf("%-30s %9s  %-30s %9s %7s\n", "large: view", "ms", "transformer: view", "ms", "ratio");
    bool ok = true;
    for (std::size_t g = 0; g < groups; ++g) {
        const double b = median(bigTimes[g]), r = median(refTimes[g]);
        std::printf("%-30s %9.2f  %-30s %9.2f %7.2f\n", bigPlan.groupNames[g].c_str(), b, refPlan.groupNames[g].c_str(),
                    r, b / std::max(r, 1e-3));
        ok = ok && b <= 16.0;
    }
    const double ratio = median(bigAll) / std::max(median(refAll), 1e-3);
    std::printf("overall median: large %.2f ms, transformer %.2f ms, ratio %.2f\n", median(bigAll), median(refAll),
                ratio);
    std::printf("worst frame: large %.2f ms, transformer %.2f ms\n", *std::max_element(bigAll.begin(), bigAll.end()),
                *std::max_element(refAll.begin(), refAll.end()));
    ok = ok && ratio <= 2.0;
    std::printf("targets (median <= 16 ms at every zoom, overall ratio <= 2): %s\n", ok ? "met" : "NOT met");
    return 0;
}
