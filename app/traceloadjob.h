#pragma once
// Loads one trace file or a set of them (the ranks of a run, BASE and NEW) on a worker
// thread: analysis::loadTraceFiles gives each file its own loader, as many at once as
// there are cores. The GUI polls the loaders' progress atomics from a timer (one figure
// for the whole set) and receives every result at once, so the window never freezes.
// Starting a new load cancels the previous one (JobTracker drops its late result and
// stops its loaders).
#include "core/loading/loader.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

class QTimer;

namespace ks {

namespace analysis {
class MultiLoadProgress;
}
class JobTracker;

// One file of a load: its trace, or why there is none.
struct LoadedFile {
    QString path;
    std::shared_ptr<const Trace> trace;
    QString error; // empty when loaded
};

class TraceLoadJob : public QObject {
    Q_OBJECT
public:
    explicit TraceLoadJob(QObject* parent = nullptr);
    ~TraceLoadJob() override;

    bool isRunning() const { return m_progress != nullptr; }
    QStringList paths() const { return m_paths; }

public Q_SLOTS:
    void start(const QStringList& paths);
    void cancel();

Q_SIGNALS:
    void progressChanged(quint64 bytesDone, quint64 bytesTotal, quint64 events, int filesDone, int files);
    // Exactly one of these follows each start() that is not superseded by another.
    // `files` is in the order of the paths given to start().
    void finished(const std::vector<ks::LoadedFile>& files);
    void cancelled(const QStringList& paths);

private:
    void pollProgress();
    void finish(const std::vector<LoadResult>& results);
    void fail(const QString& message);

    std::shared_ptr<analysis::MultiLoadProgress> m_progress; // shared with the worker
    QStringList m_paths;
    QTimer* m_timer = nullptr;
    JobTracker* m_jobs = nullptr;
};

} // namespace ks
