#pragma once
// Non-modal list of the load's warnings (truncated file, unpaired flows, overlaps moved
// to extra lanes, ...): one line per code with its count, the located messages inside.
#include "core/model/diagnostics.h"

#include <QTreeWidget>

namespace ks {

class DiagnosticsPanel : public QTreeWidget {
    Q_OBJECT
public:
    explicit DiagnosticsPanel(QWidget* parent = nullptr);
    void setDiagnostics(const Diagnostics& diagnostics);
};

} // namespace ks
