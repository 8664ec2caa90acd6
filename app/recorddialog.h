#pragma once
// File ▸ Record…: what to launch under the collector (program, arguments, working
// directory, environment) and how to record it (PyTorch operators, capture range, delay and
// duration, step marker, start paused, the collector's own options), remembered in QSettings
// between runs. The dialog
// shows the equivalent `kinetoscope-cli collect` command line.
#include "app/recordingsession.h"
#include "collector/host/launcher.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace ks {

class RecordDialog : public QDialog {
    Q_OBJECT
public:
    explicit RecordDialog(QWidget* parent = nullptr);

    collector::LaunchRequest request() const;
    RecordingOptions options() const;
    // The same recording from the command line: the arguments after `kinetoscope-cli`.
    QStringList commandLine() const;
    // Parses "K=V" lines (blank lines and # comments skipped); false with the bad line.
    static bool parseEnvironment(const QString& text, std::vector<std::pair<std::string, std::string>>& out,
                                 QString& badLine);

    void accept() override;

private:
    void load();
    void save() const;
    void updateCommandLine();
    QString captureRange() const; // "", "cudaProfilerApi" or "nvtx:NAME"

    QLineEdit* m_program = nullptr;
    QLineEdit* m_arguments = nullptr;
    QLineEdit* m_workingDirectory = nullptr;
    QPlainTextEdit* m_environment = nullptr;
    QComboBox* m_pytorch = nullptr; // data: "", "off", "ops", "ops-shapes"
    QComboBox* m_capture = nullptr; // data: "", "cudaProfilerApi", "nvtx"
    QLineEdit* m_nvtxName = nullptr;
    QDoubleSpinBox* m_delay = nullptr; // seconds, 0: from the start
    QDoubleSpinBox* m_duration = nullptr; // seconds, 0: to the end
    QLineEdit* m_stepMarker = nullptr;
    QLineEdit* m_collectorOptions = nullptr; // collect --collector-options, checked on accept
    QCheckBox* m_startPaused = nullptr;
    QCheckBox* m_liveWindow = nullptr;
    QLabel* m_commandLine = nullptr;
};

} // namespace ks
