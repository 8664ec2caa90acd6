#pragma once
// Shared by the main-window tests: test-mode settings and the message box a window shows.
#include <QCoreApplication>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QWidget>

namespace kstest {

// Settings in a throwaway test location, cleared: no test sees another's recent files.
inline void useTestSettings()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTest"));
    QSettings().clear();
}

inline QMessageBox* visibleMessageBox(const QWidget& window)
{
    for (QMessageBox* box : window.findChildren<QMessageBox*>()) {
        if (box->isVisible())
            return box;
    }
    return nullptr;
}

} // namespace kstest
