#pragma once
// The main window as a RecordingHost: its File menu, status bar, shown trace and timeline,
// through MainWindow's public interface only.
#include "app/recordinghost.h"

namespace ks {

class MainWindow;

class WindowRecordingHost : public RecordingHost {
public:
    explicit WindowRecordingHost(MainWindow* window);

    QWidget* dialogParent() override;
    void addFileActions(const QList<QAction*>& actions) override;
    void addStatusWidget(QWidget* widget) override;
    void showStatusMessage(const QString& message, int timeoutMs = 0) override;
    std::shared_ptr<const Trace> shownTrace() const override;
    void showTrace(std::shared_ptr<const Trace> trace, const QString& title, bool newerSnapshot) override;
    TimeScale timelineScale() const override;
    int timelineWidth() const override;
    void setTimelineScale(const TimeScale& scale) override;
    void setTimelineRange(TimeNs start, TimeNs end) override;
    void setTimelineLeftOutBefore(TimeNs time) override;

private:
    MainWindow* m_window;
};

} // namespace ks
