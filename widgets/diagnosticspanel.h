#pragma once
// Non-modal list of the load's diagnostics, one group per code with its count, severity and
// the first few located examples. Things actually wrong (truncation, bad events, overlaps
// moved to extra lanes) come first; expected properties of the format (kineto's orphan flow
// halves) are listed as information and are not counted as warnings.
#include "core/model/diagnostics.h"

#include <QTreeWidget>

namespace ks {

class DiagnosticsPanel : public QTreeWidget {
    Q_OBJECT
public:
    static constexpr int kExamplesPerKind = 5;

    explicit DiagnosticsPanel(QWidget* parent = nullptr);
    void setDiagnostics(const Diagnostics& diagnostics);
    void clearDiagnostics();
    std::uint64_t warningCount() const { return m_warnings; }
    std::uint64_t infoCount() const { return m_info; }
    // For the status bar: "⚠ 3 warnings", "ℹ 79 info" or empty when there is nothing.
    QString summaryText() const;

private:
    std::uint64_t m_warnings = 0;
    std::uint64_t m_info = 0;
};

} // namespace ks
