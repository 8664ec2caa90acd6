#pragma once
// The user's marks on the timeline (issue 41, the Notes dock): a flag on the ruler at a
// mark's time, a bar along the ruler's foot under a range, and a thin line down the tracks
// at each end. The timeline owns one and paints it over its frame; its ruler tooltip shows
// the note. Painting only: the marks live in the notes (core/notes/tracenotes.h).
#include "core/notes/tracenotes.h"

#include <QRect>

#include <functional>
#include <vector>

class QPainter;
class QPoint;

namespace ks {

class TimelineMarks {
public:
    // Viewport x of a time of the primary trace.
    using XOf = std::function<double(TimeNs)>;

    void setMarks(std::vector<notes::Mark> marks) { m_marks = std::move(marks); }
    const std::vector<notes::Mark>& marks() const { return m_marks; }

    // `timeArea`: the viewport's time columns, ruler included (x from the label column's edge).
    void paint(QPainter& painter, const QRect& timeArea, int rulerHeight, const XOf& xOf) const;
    // The mark whose flag or bar is at this viewport point of the ruler, or -1.
    int markAt(const QPoint& pos, const QRect& timeArea, int rulerHeight, const XOf& xOf) const;

private:
    std::vector<notes::Mark> m_marks;
};

} // namespace ks
