#pragma once
// Loads a trace on a worker thread. The GUI polls the loader's progress atomics from a
// timer and receives the immutable trace by a queued signal, so the window never
// freezes. Starting a new load cancels the previous one (JobTracker drops its late result
// and stops its loader).
#include "core/loading/loader.h"

#include <QObject>
#include <QString>

#include <memory>

class QTimer;

namespace ks {

class JobTracker;

class TraceLoadJob : public QObject {
    Q_OBJECT
public:
    explicit TraceLoadJob(QObject* parent = nullptr);
    ~TraceLoadJob() override;

    bool isRunning() const { return m_progress != nullptr; }
    QString path() const { return m_path; }

public Q_SLOTS:
    void start(const QString& path);
    void cancel();

Q_SIGNALS:
    void progressChanged(quint64 bytesDone, quint64 bytesTotal, quint64 events);
    // Exactly one of these follows each start() that is not superseded by another.
    void loaded(const QString& path, std::shared_ptr<const ks::Trace> trace);
    void failed(const QString& path, const QString& message);
    void cancelled(const QString& path);

private:
    void pollProgress();
    void finish(const QString& path, const LoadResult& result);
    void fail(const QString& path, const QString& message);

    std::shared_ptr<LoadProgress> m_progress; // shared with the worker, outlives either
    QString m_path;
    QTimer* m_timer = nullptr;
    JobTracker* m_jobs = nullptr;
};

} // namespace ks
