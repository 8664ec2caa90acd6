#pragma once
// A flame graph drawn as an icicle (the root on top, callees below): a node's width is its
// time (CPU or GPU; a diff: NEW's, vanished paths hatched with BASE's width, colour by the
// change per step: red slower, blue faster, saturating at ±100 %). Click zooms into a node
// (click the zoomed node or an ancestor row to zoom out), a search dims what does not match,
// hovering shows the node's numbers, double-click (or the context menu) asks for the node's
// occurrences on the timeline. GUI thread only.
#include "widgets/flamegraphdata.h"

#include <QWidget>

#include <memory>

namespace ks {

class FlameGraphWidget : public QWidget {
    Q_OBJECT
public:
    explicit FlameGraphWidget(QWidget* parent = nullptr);

    void setData(std::shared_ptr<const FlameGraphData> data);
    const FlameGraphData* data() const { return m_data.get(); }
    std::uint32_t zoomNode() const { return m_zoom; }
    std::uint32_t nodeAt(QPoint pos) const; // FlameGraphData::kNone outside every node
    QRectF nodeRect(std::uint32_t node) const; // where the node is drawn (empty if not)
    int rowHeight() const { return m_rowHeight; }
    QSize sizeHint() const override;

public Q_SLOTS:
    void zoomTo(std::uint32_t node);
    void resetZoom() { zoomTo(FlameGraphData::kRoot); }
    // Case-insensitive label search; empty: nothing dimmed.
    void setSearchText(const QString& text);
    void setCurrentNode(std::uint32_t node);

Q_SIGNALS:
    void nodeClicked(std::uint32_t node);
    // Double-click or "Show occurrences on the timeline".
    void occurrencesRequested(std::uint32_t node);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool event(QEvent* event) override;

private:
    QColor fillOf(std::uint32_t node) const;
    int ancestorRows() const; // rows above the zoomed node: its ancestors
    void updateHeight();

    std::shared_ptr<const FlameGraphData> m_data;
    std::uint32_t m_zoom = FlameGraphData::kRoot;
    std::uint32_t m_current = FlameGraphData::kNone;
    std::vector<bool> m_matches; // by node, while searching
    bool m_searching = false;
    int m_rowHeight = 18;
};

} // namespace ks
