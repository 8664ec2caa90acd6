#pragma once
// Paints the timeline (ruler, process groups, slice rows, instants, counters, flow
// arrows) into any QPainter: the widget, a test QImage or the render benchmark. Each
// visible row is turned into a level-of-detail draw list first (core/drawlist.h), so a
// frame costs O(pixels), whatever the number of events. Hit testing rebuilds the list
// of the one row under the cursor, so it always agrees with what was painted.
#include "core/timeline/drawlist.h"
#include "core/timeline/timescale.h"
#include "core/timeline/tracklayout.h"
#include "widgets/slicecolors.h"
#include "widgets/timelinechrome.h"
#include "widgets/timelinehit.h"
#include "widgets/timelineplottracks.h"
#include "widgets/timelineviewstate.h"

#include <QFont>
#include <QPoint>
#include <QRect>
#include <QSize>
#include <QStaticText>

#include <memory>
#include <unordered_map>
#include <vector>

class QPainter;
class QPen;

namespace ks {

class TimelineRenderer {
public:
    static constexpr int kRulerHeight = 26;
    // Global instants (kineto's "Iteration Start", "Record Window End") cross every track.
    static constexpr QRgb kGlobalInstantColor = 0xffc83c3c;
    static constexpr int kLabelWidth = 240;
    // "All flows in view" never draws more arrows than this: dense traces stay smooth.
    static constexpr int kMaxFlowsInView = 400;
    // A click this close to an instant's tick selects it.
    static constexpr int kInstantHitPx = 3;

    TimelineRenderer();
    void setTrace(std::shared_ptr<const Trace> trace);
    // GPU metric tracks (LayoutItem::Kind::Metric) plot this report, by device index (it
    // may be an older snapshot's of a live trace); null: none.
    void setGpuReport(std::shared_ptr<const gpu::GpuReport> report) { m_plots.setGpuReport(std::move(report)); }
    // The metric index of a GPU process of the trace, or null.
    const gpu::GpuMetricIndex* gpuMetricIndex(std::uint32_t process) const { return m_plots.gpuMetricIndex(process); }
    // The value under the cursor of a counter or GPU metric track (hover text); empty elsewhere.
    QString readoutAt(const QPoint& pos, const QSize& size, const TrackLayout& layout,
                      const TimelineViewState& state) const;
    const SliceColors& colors() const { return m_colors; }
    // Backgrounds, headers, grid and text (the system palette's, when it is dark).
    void setChrome(const TimelineChrome& chrome) { m_chrome = chrome; }
    const TimelineChrome& chrome() const { return m_chrome; }

    static int timeAreaWidth(const QSize& viewport) { return std::max(1, viewport.width() - kLabelWidth); }
    static int tracksAreaHeight(const QSize& viewport) { return std::max(0, viewport.height() - kRulerHeight); }

    void paint(QPainter& p, const QSize& size, const TrackLayout& layout, const TimelineViewState& state);
    // Several traces in one viewport: each paints its tracks and labels inside its band
    // (viewport coordinates; state.scrollY already relative to the band's layout), then
    // one of them paints the shared ruler.
    void paintBand(QPainter& p, const QSize& size, const TrackLayout& layout, const TimelineViewState& state,
                   const QRect& band);
    void paintRuler(QPainter& p, const QSize& size, const TrackLayout& layout, const TimelineViewState& state) const;
    // Where flow arrows attach to a slice (viewport pixels, clamped to the view; `inside`
    // false when it was clamped), and the arrow itself.
    QPointF sliceAnchor(const QSize& size, const TrackLayout& layout, const TimelineViewState& state, SliceId slice,
                        bool* inside = nullptr) const;
    static void drawFlowCurve(QPainter& p, const QPointF& a, const QPointF& b, bool targetInside);
    TimelineHit hitTest(const QPoint& pos, const QSize& size, const TrackLayout& layout,
                        const TimelineViewState& state) const;

    // Items drawn and events folded by the last paint (for tests and the benchmark).
    struct FrameStats {
        std::size_t items = 0;
        std::size_t foldedItems = 0;
        std::size_t events = 0; // slices represented, folded or not
        std::size_t flowArrows = 0;
    };
    const FrameStats& lastFrameStats() const { return m_stats; }

private:
    struct Viewport;
    struct RulerTick {
        int x; // viewport x
        TimeNs time;
        TimeNs step; // spacing of the ticks
    };
    std::vector<RulerTick> rulerTicks(const Viewport& v) const;
    // The elided label of a name for a box of about `width` pixels, shaped once.
    const QStaticText& labelFor(StringId name, int width);
    void paintRuler(QPainter& p, const Viewport& v) const;
    // Tracks, instants, selection, flows and labels of the layout inside `clip`.
    void paintTracks(QPainter& p, const Viewport& v, const QRect& clip);
    void paintRow(QPainter& p, const Viewport& v, std::uint32_t row, int y);
    // Process-scoped instants as ticks in their group header (process == kNoIndex: the
    // global ones, as lines across all tracks).
    void paintScopedInstants(QPainter& p, const Viewport& v, std::uint32_t process, int y, int height) const;
    void paintInstants(QPainter& p, const Viewport& v, std::uint32_t track, int y) const;
    void paintLabels(QPainter& p, const Viewport& v, const QRect& clip) const;
    void paintSelection(QPainter& p, const Viewport& v) const;
    void paintSelectedInstant(QPainter& p, const Viewport& v) const;
    // The thread instant of `track` nearest to time-area x within kInstantHitPx, or kNoIndex.
    std::uint32_t instantNear(std::uint32_t track, double x, const TimeScale& scale) const;
    void outlineSlice(QPainter& p, const Viewport& v, SliceId slice, const QPen& pen) const;
    void paintFlows(QPainter& p, const Viewport& v);
    void paintFlowArrow(QPainter& p, const Viewport& v, SliceId from, SliceId to);
    // Centre-left of the slice in viewport pixels, clamped to the visible area; false
    // when it lies outside (the arrow then ends at the edge).
    bool anchorOf(const Viewport& v, SliceId slice, QPointF& point) const;

    std::shared_ptr<const Trace> m_trace;
    SliceColors m_colors;
    TimelineChrome m_chrome;
    TimelinePlotTracks m_plots; // counters and GPU metric tracks
    std::vector<DrawItem> m_items; // scratch, reused across rows and frames
    // Labels keyed by (name, width rounded down to kLabelWidthStep): panning and
    // redrawing reuse the shaped text instead of eliding and shaping on every frame.
    std::unordered_map<std::uint64_t, QStaticText> m_labels;
    QFont m_font;
    QFont m_boldFont;
    int m_fontHeight = 0;
    FrameStats m_stats;
};

} // namespace ks
