#pragma once
// The ranks × steps heat map of a job view (issue 40): one row per rank, one column per step,
// each cell as dark as the waiting that rank caused in that step (others' wait in the
// collectives it arrived last to). 1,024 ranks fit: the cells are drawn as one image scaled
// to the widget, a row or column of pixels holding the largest of the cells it covers.
// Hovering names the cell; clicking one asks for that rank.
#include "core/analysis/jobview.h"

#include <QImage>
#include <QWidget>

namespace ks {

class WaitHeatMap : public QWidget {
    Q_OBJECT
public:
    explicit WaitHeatMap(QWidget* parent = nullptr);

    void setMap(analysis::WaitHeatMap map);
    const analysis::WaitHeatMap& map() const { return m_map; }
    // The cell under a point of the widget: (row, column), or (-1, -1) outside.
    std::pair<int, int> cellAt(QPoint point) const;
    QSize sizeHint() const override { return {400, 160}; }

Q_SIGNALS:
    void rankActivated(int rank);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRect cellArea() const;
    void rebuildImage();

    analysis::WaitHeatMap m_map;
    QImage m_image; // one pixel per (rank, step), at most the widget's size
};

} // namespace ks
