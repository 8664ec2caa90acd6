#include "widgets/timelinescrollbars.h"

#include <QScrollBar>

#include <algorithm>
#include <cmath>

namespace ks {

TimelineScrollBars::TimelineScrollBars(QScrollBar& horizontal, QScrollBar& vertical)
    : m_horizontal(horizontal)
    , m_vertical(vertical)
{
}

void TimelineScrollBars::show(TimelineViewState& view, const TimeExtent& extent, int timeWidth, int contentHeight,
                              int tracksHeight, int rowHeight)
{
    m_updating = true;
    m_vertical.setRange(0, std::max(0, contentHeight - tracksHeight));
    m_vertical.setPageStep(std::max(1, tracksHeight));
    m_vertical.setSingleStep(rowHeight);
    view.scrollY = std::clamp(view.scrollY, 0, m_vertical.maximum());
    m_vertical.setValue(view.scrollY);

    if (extent.end > extent.start) {
        const double span = double(extent.end - extent.start);
        const double visible = view.scale.nsPerPixel() * timeWidth;
        const int page = std::clamp(int(visible / span * kScrollSteps), 1, kScrollSteps);
        m_horizontal.setRange(0, kScrollSteps - page);
        m_horizontal.setPageStep(page);
        m_horizontal.setSingleStep(std::max(1, page / 10));
        m_horizontal.setValue(int(double(view.scale.viewStart() - extent.start) / span * kScrollSteps));
    } else {
        m_horizontal.setRange(0, 0);
    }
    m_updating = false;
}

TimeNs TimelineScrollBars::viewStart(const TimeExtent& extent) const
{
    const double span = double(extent.end - extent.start);
    return extent.start + TimeNs(std::llround(double(m_horizontal.value()) / kScrollSteps * span));
}

} // namespace ks
