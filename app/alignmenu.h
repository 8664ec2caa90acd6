#pragma once
// View ▸ Align Traces: how the traces of a workspace share the time axis (absolute clock or
// step starts, each step separately for a comparison) and whether every cross-rank link is
// drawn. Enabled while a workspace of several traces is open.
#include <QMenu>

namespace ks {

class TimelineWidget;
class WorkspaceController;

class AlignMenu : public QMenu {
    Q_OBJECT
public:
    AlignMenu(WorkspaceController* workspace, TimelineWidget* timeline, QWidget* parent = nullptr);
};

} // namespace ks
