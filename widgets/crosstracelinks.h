#pragma once
// The links between slices of different traces on one timeline (matched collectives of the
// ranks of a run): drawn for the selected slice, or all of them in view on a toggle, and
// followed like flows with [ and ]. Highlighted links (the critical path's waits for the last
// rank) are drawn whatever is selected.
#include "widgets/crosstracelink.h"

#include <QPointF>
#include <QRect>

#include <functional>
#include <vector>

class QPainter;

namespace ks {

class CrossTraceLinks {
public:
    const std::vector<CrossTraceLink>& links() const { return m_links; }
    void setLinks(std::vector<CrossTraceLink> links) { m_links = std::move(links); }
    const std::vector<CrossTraceLink>& highlighted() const { return m_highlighted; }
    void setHighlighted(std::vector<CrossTraceLink> links) { m_highlighted = std::move(links); }
    // No links, none highlighted (new traces); the show-all toggle stays.
    void reset()
    {
        m_links.clear();
        m_highlighted.clear();
    }
    bool showsAll() const { return m_all; }
    void setShowAll(bool show) { m_all = show; }
    // The links drawn in the last frame (tests).
    std::size_t drawn() const { return m_drawn; }
    void resetDrawn() { m_drawn = 0; }

    // The other end of `from`'s link in that direction; an invalid TraceSlice when none.
    TraceSlice follow(TraceSlice from, bool incoming) const;

    // Where a link attaches to one of its ends (viewport pixels; `inside` false when the
    // point was clamped to the view).
    using Anchor = std::function<QPointF(TraceSlice end, bool* inside)>;
    // Inside `timeArea` (the time columns below the ruler).
    void paint(QPainter& painter, const QRect& timeArea, TraceSlice selection, const Anchor& anchor);

private:
    std::vector<CrossTraceLink> m_links;
    std::vector<CrossTraceLink> m_highlighted;
    bool m_all = false;
    std::size_t m_drawn = 0;
};

} // namespace ks
