#pragma once
// The timeline: a custom-painted scroll area over the trace's tracks.
//
// Hooks for other panels (statistics, GPU overlays, search, details):
//   - revealSlice(SliceId) selects a slice, records it in Back/Forward history, expands
//     its group and scrolls/zooms so it is visible;
//   - setVisibleRange(start, end) zooms to a time range (e.g. a chart's selection);
//   - selectionChanged(SliceId) and visibleRangeChanged(start, end) report user actions;
//   - traceChanged(trace) fires after setTrace().
// Everything here runs on the GUI thread; the trace is immutable and shared read-only.
#include "core/timeline/navigationhistory.h"
#include "core/timeline/tracklayout.h"
#include "widgets/timelinerenderer.h"

#include <QAbstractScrollArea>

#include <memory>
#include <vector>

namespace ks {

class TimelineWidget : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget* parent = nullptr);

    std::shared_ptr<const Trace> trace() const { return m_trace; }
    void setTrace(std::shared_ptr<const Trace> trace);

    SliceId selectedSlice() const { return m_state.selected; }
    const TimeScale& timeScale() const { return m_state.scale; }
    int scrollY() const { return m_state.scrollY; }
    const TrackLayout& trackLayout() const { return m_layout; }
    int timeAreaWidth() const;
    // Viewport x of a time / the time at a viewport x (the label column is on the left).
    double viewportXOf(TimeNs t) const;
    TimeNs timeAtViewportX(double x) const;
    // Viewport y of the middle of a row, or -1 when its group is collapsed.
    int viewportYOfRow(std::uint32_t row) const;
    bool isProcessCollapsed(std::uint32_t process) const;
    const std::vector<SliceId>& highlightedSlices() const { return m_highlightedSlices; }
    bool showsAllFlows() const { return m_state.allFlowsInView; }
    bool canGoBack() const { return m_history.canGoBack(); }
    bool canGoForward() const { return m_history.canGoForward(); }

    // Paints the whole widget as it would appear on screen (tests, benchmark).
    void renderTo(QPainter& painter);
    const TimelineRenderer& renderer() const { return m_renderer; }

public Q_SLOTS:
    void revealSlice(ks::SliceId slice);
    void clearSelection();
    void setVisibleRange(ks::TimeNs start, ks::TimeNs end);
    void setTimeScale(const ks::TimeScale& scale);
    void zoomAt(double viewportX, double factor);
    void panBy(double pixels);
    void fitAll();
    void fitSelection();
    // Follow the selected slice's first incoming (`[`) / outgoing (`]`) flow.
    void followIncomingFlow();
    void followOutgoingFlow();
    void goBack();
    void goForward();
    void setProcessCollapsed(std::uint32_t process, bool collapsed);
    void setShowAllFlows(bool show);
    void setFlowCategoryVisible(ks::StringId category, bool visible);
    // Names to highlight (indexed by StringId); empty: no search active.
    void setHighlightedNames(std::vector<bool> names);
    // Slices to highlight, any order (an insight's evidence); the rest is dimmed. Empty: none.
    void setHighlightedSlices(std::vector<ks::SliceId> slices);

Q_SIGNALS:
    void traceChanged(std::shared_ptr<const ks::Trace> trace);
    void selectionChanged(ks::SliceId slice);
    void visibleRangeChanged(ks::TimeNs start, ks::TimeNs end);
    void historyChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    bool viewportEvent(QEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    void select(SliceId slice, bool recordHistory);
    // Selects the slice, expands its group and scrolls it into view.
    void reveal(SliceId slice, bool recordHistory);
    void ensureVisible(SliceId slice);
    void followFlow(bool incoming);
    void rebuildLayout();
    void updateScrollBars();
    void applyScale(const TimeScale& scale);
    void showToolTip(const QPoint& pos, const QPoint& globalPos);

    std::shared_ptr<const Trace> m_trace;
    TimelineRenderer m_renderer;
    TrackLayout m_layout;
    TimelineViewState m_state;
    std::vector<bool> m_collapsed; // per process
    std::vector<bool> m_highlightedNames;
    std::vector<SliceId> m_highlightedSlices; // sorted
    std::vector<bool> m_hiddenFlowCategories;
    NavigationHistory m_history;
    QPoint m_pressPos;
    QPoint m_lastDragPos;
    bool m_dragging = false;
    bool m_updatingScrollBars = false;
};

} // namespace ks
