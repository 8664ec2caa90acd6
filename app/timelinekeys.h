#pragma once
// The timeline's keys (W/S zoom, A/D pan, 0/Home fit all, F zoom to the selection) as
// window-wide actions: they work whichever panel has focus, and yield only to text fields
// (a QLineEdit claims printable keys through ShortcutOverride). Each action hands its key
// to the timeline, so the keys do exactly what they do when the timeline has focus.
class QAction;
class QMenu;

namespace ks {

class TimelineWidget;

struct TimelineKeyActions {
    QAction* fitAll = nullptr;
    QAction* fitSelection = nullptr;
};

// Adds the actions to `view` and returns those the toolbar shows.
TimelineKeyActions addTimelineKeyActions(QMenu& view, TimelineWidget& timeline);

} // namespace ks
