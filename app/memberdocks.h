#pragma once
// Docks that follow the selected workspace member (issue 35): each gets a member picker
// above its panel; a statistics table then shows the picked member's trace, with the
// timeline's ranges turned into that member's time and its occurrences revealed there.
class QDockWidget;
class QWidget;

namespace ks {

class MemberPicker;
class StatsPanel;
class TimelineWidget;

// Puts `panel` under a new member picker as the dock's widget; returns the picker.
MemberPicker* placeUnderMemberPicker(QDockWidget& dock, QWidget* panel, TimelineWidget& timeline);

// The panel shows the picker's member: its trace and, in its time, the timeline's visible and
// selected ranges. Replaces the range connections of a single-trace panel.
void followPickedMember(StatsPanel& panel, const MemberPicker& picker, TimelineWidget& timeline);

} // namespace ks
