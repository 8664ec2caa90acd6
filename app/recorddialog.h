#pragma once
// File ▸ Record…: what to launch under the collector (program, arguments, working
// directory, environment), remembered in QSettings between runs.
#include "collector/host/launcher.h"

#include <QDialog>

class QLineEdit;
class QPlainTextEdit;

namespace ks {

class RecordDialog : public QDialog {
    Q_OBJECT
public:
    explicit RecordDialog(QWidget* parent = nullptr);

    collector::LaunchRequest request() const;
    // Parses "K=V" lines (blank lines and # comments skipped); false with the bad line.
    static bool parseEnvironment(const QString& text, std::vector<std::pair<std::string, std::string>>& out,
                                 QString& badLine);

    void accept() override;

private:
    void load();
    void save() const;

    QLineEdit* m_program = nullptr;
    QLineEdit* m_arguments = nullptr;
    QLineEdit* m_workingDirectory = nullptr;
    QPlainTextEdit* m_environment = nullptr;
};

} // namespace ks
