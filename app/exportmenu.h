#pragma once
// File ▸ Export (issue 41): the timeline as a PNG of a chosen size, and the first table of
// each dock that has one as CSV; rebuilt each time it opens, so new docks and the trace
// shown are always current.
#include <QMenu>

class QMainWindow;

namespace ks {

class TimelineWidget;

class ExportMenu : public QMenu {
    Q_OBJECT
public:
    ExportMenu(QMainWindow* window, TimelineWidget* timeline);

private:
    void rebuild();
    // Asks the size and the file.
    void exportTimelineImage();

    QMainWindow* m_window;
    TimelineWidget* m_timeline;
};

} // namespace ks
