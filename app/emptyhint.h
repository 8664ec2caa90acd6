#pragma once
// What the timeline says when there is nothing to draw: no trace open (with the ways to open
// or record one), or a trace without events. It sits centred over the timeline's viewport.
#include "core/model/trace.h"

#include <QLabel>

#include <memory>

namespace ks {

class EmptyTraceHint : public QLabel {
    Q_OBJECT
public:
    // `area`: the widget to cover (the timeline's viewport); the hint follows its size.
    explicit EmptyTraceHint(QWidget* area);

public Q_SLOTS:
    void setTrace(const std::shared_ptr<const ks::Trace>& trace);

Q_SIGNALS:
    void openRequested();
    void demoRequested();
    void recordRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void place();
};

} // namespace ks
