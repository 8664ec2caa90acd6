#pragma once
// Hooks recording into a window (through RecordingHost): File ▸ Record… / Pause Capture /
// Stop Recording / Save As…, the status bar line while recording, and the live timeline that
// follows the newest events unless the user has scrolled or zoomed away from them.
#include "app/recordinghost.h"
#include "app/recordingsession.h"
#include "collector/host/launcher.h"
#include "core/model/trace.h"
#include "core/writing/writer.h"

#include <QObject>

#include <memory>

class QAction;
class QLabel;

namespace ks {

class JobTracker;
class RecordingSession;

class RecordingController : public QObject {
    Q_OBJECT
public:
    // `host`: the window it records into (File menu, status bar, shown trace, timeline).
    RecordingController(std::unique_ptr<RecordingHost> host, QObject* parent);
    ~RecordingController() override;

    bool isRecording() const { return m_session != nullptr; }

    // Starts recording `request` without asking (record() asks through the dialog first).
    void startRecording(const collector::LaunchRequest& request, const RecordingOptions& options = {});
    bool isCapturePaused() const;

public Q_SLOTS:
    void record();
    void stop();
    // Pause Capture (checked) / resume: what the program does while paused is left out.
    void setCapturePaused(bool paused);
    void saveAs();
    // Writes the shown trace to `path` on a worker thread; `saved` reports the outcome.
    void saveTo(const QString& path);

Q_SIGNALS:
    void saved(const QString& path, bool ok);

private:
    void showSnapshot(const std::shared_ptr<const Trace>& trace, const QString& status);
    bool showsSnapshot() const;
    void onFinished(std::shared_ptr<const Trace> trace, const QString& summary);
    void onFailed(const QString& message);
    void setRecordingUi(bool recording);
    void onSaved(const QString& path, const TraceWriteResult& result);
    static QString lossText(const std::vector<WriteLoss>& losses);

    std::unique_ptr<RecordingHost> m_host;
    std::unique_ptr<RecordingSession> m_session;
    QAction* m_recordAction = nullptr;
    QAction* m_stopAction = nullptr;
    QAction* m_pauseAction = nullptr; // checked while the capture is paused
    QAction* m_recentOnlyAction = nullptr; // checked while live snapshots hold recent events only
    QAction* m_saveAsAction = nullptr;
    QLabel* m_status = nullptr;
    QString m_title;
    // The last snapshot of this session shown; the next one continues its view while the
    // window still shows it (not a file opened before or since).
    std::shared_ptr<const Trace> m_snapshot;
    JobTracker* m_saveJob;
};

} // namespace ks
