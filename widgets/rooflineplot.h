#pragma once
// A log-log roofline (QCustomPlot): FLOPs per byte across, achieved TFLOP/s up; the device's
// roofs per precision (min(peak, intensity · bandwidth)); one point per op and shape, its area
// growing with its device time, coloured by its roof. Hovering a point shows its numbers,
// clicking it emits its kernels. GUI thread only.
#include "core/analysis/roofline.h"

#include <qcustomplot.h>

namespace ks {

class RooflinePlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit RooflinePlot(QWidget* parent = nullptr);

    void setRoofline(analysis::Roofline roofline);
    const analysis::Roofline& roofline() const { return m_roofline; }
    // The point under a widget position (within a few pixels), or -1.
    int pointAt(const QPointF& pos) const;
    QString pointText(int point) const;

Q_SIGNALS:
    void pointClicked(int point);

private:
    void rebuild();

    analysis::Roofline m_roofline;
    std::vector<QPointF> m_pixelCache; // of the points, refreshed on each replot
};

} // namespace ks
