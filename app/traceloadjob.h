#pragma once
// Loads one trace file or a set of them (the ranks of a run, BASE and NEW) on worker
// threads of a private pool: one loader per file, as many at once as there are cores.
// The GUI polls the loaders' progress atomics from a timer (one figure for the whole
// set) and receives every result at once by a queued signal, so the window never
// freezes. Starting a new load cancels the previous one; late results of a cancelled
// load are dropped by their generation number.
#include "core/loading/loader.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>

#include <memory>
#include <vector>

class QTimer;

namespace ks {

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

    bool isRunning() const { return m_batch != nullptr; }
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
    struct Batch;
    void pollProgress();
    void fileDone(quint64 generation, std::size_t index, LoadResult result);

    QThreadPool m_pool; // private: the raster paint engine waits on the global one
    std::shared_ptr<Batch> m_batch; // shared with the workers, outlives either
    QStringList m_paths;
    quint64 m_generation = 0;
    QTimer* m_timer = nullptr;
};

} // namespace ks
