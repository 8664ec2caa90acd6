#include "app/recordingcontroller.h"

#include "app/recorddialog.h"
#include "app/recordingsession.h"
#include "core/writing/writer.h"
#include "widgets/jobtracker.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QSignalBlocker>

#include <limits>
#include <utility>

namespace ks {

RecordingController::RecordingController(std::unique_ptr<RecordingHost> host, QObject* parent)
    : QObject(parent)
    , m_host(std::move(host))
    , m_saveJob(new JobTracker(this))
{
    m_recordAction = new QAction(tr("&Record…"), this);
    m_recordAction->setShortcut(QKeySequence(tr("Ctrl+R")));
    m_stopAction = new QAction(tr("S&top Recording"), this);
    m_stopAction->setEnabled(false);
    m_pauseAction = new QAction(tr("&Pause Capture"), this);
    m_pauseAction->setCheckable(true);
    m_pauseAction->setEnabled(false);
    m_pauseAction->setToolTip(tr("While checked, the program runs on but what it does is left out of the trace"));
    m_recentOnlyAction = new QAction(tr("Live Timeline: Recent &Events Only"), this);
    m_recentOnlyAction->setCheckable(true);
    m_recentOnlyAction->setEnabled(false);
    m_recentOnlyAction->setToolTip(tr("While checked, the live timeline holds the most recent %L1 events, so that it "
                                      "keeps up past millions; the finished trace holds everything")
                                       .arg(RecordingOptions::kLiveWindowSlices));
    m_saveAsAction = new QAction(tr("Save &As…"), this);
    m_saveAsAction->setShortcut(QKeySequence::SaveAs);
    connect(m_recordAction, &QAction::triggered, this, &RecordingController::record);
    connect(m_stopAction, &QAction::triggered, this, &RecordingController::stop);
    connect(m_pauseAction, &QAction::toggled, this, &RecordingController::setCapturePaused);
    connect(m_recentOnlyAction, &QAction::toggled, this, [this](bool recentOnly) {
        if (m_session)
            m_session->setLiveWindow(recentOnly ? RecordingOptions::kLiveWindowSlices : 0);
    });
    connect(m_saveAsAction, &QAction::triggered, this, &RecordingController::saveAs);
    m_host->addFileActions({m_saveAsAction, m_recordAction, m_pauseAction, m_recentOnlyAction, m_stopAction});

    m_status = new QLabel(m_host->dialogParent());
    m_status->hide();
    m_host->addStatusWidget(m_status);
}

RecordingController::~RecordingController() = default;

void RecordingController::record()
{
    if (m_session)
        return;
    RecordDialog dialog(m_host->dialogParent());
    if (dialog.exec() == QDialog::Accepted)
        startRecording(dialog.request(), dialog.options());
}

void RecordingController::startRecording(const collector::LaunchRequest& request, const RecordingOptions& options)
{
    if (m_session)
        return;
    m_title = tr("Recording %1").arg(QFileInfo(QString::fromStdString(request.program)).fileName());
    m_snapshot.reset();
    m_session = std::make_unique<RecordingSession>(request, nullptr, RecordingSession::SessionFactory(), options);
    connect(m_session.get(), &RecordingSession::snapshotReady, this, &RecordingController::showSnapshot);
    connect(m_session.get(), &RecordingSession::finished, this, &RecordingController::onFinished);
    connect(m_session.get(), &RecordingSession::failed, this, &RecordingController::onFailed);
    setRecordingUi(true);
    const QSignalBlocker quiet(m_pauseAction); // the session starts paused on its own
    m_pauseAction->setChecked(options.startPaused);
    const QSignalBlocker quietToo(m_recentOnlyAction);
    m_recentOnlyAction->setChecked(options.liveWindowSlices > 0);
    m_status->setText(tr("Starting %1…").arg(QString::fromStdString(request.program)));
    m_session->start();
}

void RecordingController::stop()
{
    if (m_session)
        m_session->stop();
}

void RecordingController::setCapturePaused(bool paused)
{
    if (m_pauseAction->isChecked() != paused)
        m_pauseAction->setChecked(paused); // comes back here through toggled
    else if (m_session)
        m_session->setPaused(paused);
}

bool RecordingController::isCapturePaused() const { return m_session && m_pauseAction->isChecked(); }

void RecordingController::saveAs()
{
    const auto trace = m_host->shownTrace();
    if (!trace) {
        QMessageBox::information(m_host->dialogParent(), tr("Save As"), tr("There is no trace to save."));
        return;
    }
    // A live snapshot may hold the most recent events only: the file would lack the others.
    if (trace == m_snapshot && collector::liveWindowOf(*trace)
        && QMessageBox::question(m_host->dialogParent(), tr("Save As"),
                                 tr("The live timeline holds only the most recent events; the whole recording is "
                                    "shown when it ends. Save only the events shown now?"))
            != QMessageBox::Yes)
        return;
    // Save As never drops data silently: what cannot be written is named before writing.
    if (const auto losses = unwritableParts(*trace); !losses.empty()
        && QMessageBox::question(
               m_host->dialogParent(), tr("Save As"),
               tr("Some parts of this trace cannot be written:\n%1\nSave the rest?").arg(lossText(losses)))
            != QMessageBox::Yes)
        return;
    const QString path = QFileDialog::getSaveFileName(m_host->dialogParent(), tr("Save Trace As"), QString(),
                                                      tr("PyTorch profiler traces (*.pt.trace.json.gz *.json)"));
    if (!path.isEmpty())
        saveTo(path);
}

void RecordingController::saveTo(const QString& path)
{
    const auto trace = m_host->shownTrace();
    if (!trace)
        return;
    // Writing a large trace takes seconds: do it on a worker (the trace is immutable and
    // shared), and report back on the GUI thread.
    m_saveAsAction->setEnabled(false);
    m_host->showStatusMessage(tr("Saving %1…").arg(path));
    m_saveJob->start([trace, file = path.toStdString()] { return writeTraceFile(*trace, file); },
                     [this, path](const TraceWriteResult& result) { onSaved(path, result); },
                     [this, path](const QString& error) {
                         TraceWriteResult failed;
                         failed.error = error.toStdString();
                         onSaved(path, failed);
                     });
}

QString RecordingController::lossText(const std::vector<WriteLoss>& losses)
{
    QStringList lines;
    for (const auto& loss : losses)
        lines << tr("%L1 %2").arg(loss.count).arg(QString::fromStdString(loss.what));
    return lines.join(QLatin1Char('\n'));
}

void RecordingController::onSaved(const QString& path, const TraceWriteResult& result)
{
    m_saveAsAction->setEnabled(true);
    if (!result.ok)
        QMessageBox::warning(m_host->dialogParent(), tr("Save As"),
                             tr("Could not save %1:\n%2").arg(path, QString::fromStdString(result.error)));
    else if (!result.lost.empty())
        QMessageBox::warning(m_host->dialogParent(), tr("Save As"),
                             tr("Saved %1, but left out:\n%2").arg(path, lossText(result.lost)));
    else
        m_host->showStatusMessage(tr("Saved %1 (%L2 events)").arg(path).arg(result.eventsWritten), 5000);
    Q_EMIT saved(path, result.ok);
}

// Follows the newest events when the view showed the end of the previous snapshot:
// a view that started at the beginning keeps showing everything, a zoomed-in one slides
// along. A view the user moved elsewhere is kept exactly.
void RecordingController::showSnapshot(const std::shared_ptr<const Trace>& trace, const QString& status)
{
    m_status->setText(status);
    const auto previous = showsSnapshot() ? m_snapshot : nullptr;
    const TimeScale scale = m_host->timelineScale();
    const double width = m_host->timelineWidth();
    m_host->showTrace(trace, m_title, previous != nullptr);
    m_snapshot = trace;
    const auto window = trace ? collector::liveWindowOf(*trace) : std::nullopt;
    m_host->setTimelineLeftOutBefore(window ? window->shownFrom : std::numeric_limits<TimeNs>::min());
    if (!previous || !trace || previous->endTime() <= previous->startTime())
        return; // first snapshot: fitted to everything
    const TimeNs viewStart = scale.viewStart();
    const TimeNs viewEnd = scale.viewEnd(width);
    const auto slack = static_cast<TimeNs>(2 * scale.nsPerPixel());
    const bool following = viewEnd + slack >= previous->endTime();
    if (!following) {
        m_host->setTimelineScale(scale);
    } else if (viewStart > previous->startTime() + slack) {
        m_host->setTimelineRange(std::max(trace->startTime(), trace->endTime() - (viewEnd - viewStart)),
                                 trace->endTime());
    }
}

bool RecordingController::showsSnapshot() const { return m_snapshot && m_host->shownTrace() == m_snapshot; }

void RecordingController::onFinished(std::shared_ptr<const Trace> trace, const QString& summary)
{
    m_host->showTrace(std::move(trace), tr("%1 (finished)").arg(m_title), showsSnapshot());
    m_host->setTimelineLeftOutBefore(std::numeric_limits<TimeNs>::min());
    m_snapshot.reset();
    // We are inside the session's signal: delete it once control has returned.
    m_session.release()->deleteLater();
    setRecordingUi(false);
    m_status->setText(summary.section(QLatin1Char('\n'), 0, 1).replace(QLatin1Char('\n'), QLatin1Char(' ')));
    if (summary.count(QLatin1Char('\n')) > 1) {
        auto* box = new QMessageBox(QMessageBox::Information, tr("Recording finished"), summary, QMessageBox::Ok,
                                    m_host->dialogParent());
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
}

void RecordingController::onFailed(const QString& message)
{
    m_snapshot.reset();
    m_session.release()->deleteLater();
    setRecordingUi(false);
    m_status->hide();
    auto* box =
        new QMessageBox(QMessageBox::Warning, tr("Cannot record"), message, QMessageBox::Ok, m_host->dialogParent());
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void RecordingController::setRecordingUi(bool recording)
{
    m_recordAction->setEnabled(!recording);
    m_stopAction->setEnabled(recording);
    m_pauseAction->setEnabled(recording);
    m_recentOnlyAction->setEnabled(recording);
    if (!recording) {
        const QSignalBlocker quiet(m_pauseAction);
        m_pauseAction->setChecked(false);
    }
    m_status->show();
}

} // namespace ks
