#pragma once
// Loads a trace on a worker thread. The GUI polls the loader's progress atomics from a
// timer and receives the immutable trace by a queued signal, so the window never
// freezes. Starting a new load cancels the previous one; a late result of a cancelled
// load is dropped by its generation number.
#include "core/loading/loader.h"

#include <QObject>
#include <QString>

#include <memory>

class QTimer;

namespace ks {

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
    void finish(quint64 generation, const QString& path, const LoadResult& result);

    std::shared_ptr<LoadProgress> m_progress; // shared with the worker, outlives either
    QString m_path;
    quint64 m_generation = 0;
    QTimer* m_timer = nullptr;
};

} // namespace ks
