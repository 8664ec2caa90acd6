#pragma once
// Shared by the main-window tests: test-mode settings, showing a window, opening a file in it
// and the message box a window shows.
#include <QCoreApplication>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QWidget>

namespace kstest {

// Settings in a throwaway test location, cleared: no test sees another's recent files.
inline void useTestSettings()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTest"));
    QSettings().clear();
}

// A laptop screen: layouts must leave the timeline most of the height there.
inline constexpr QSize kSmallScreen{1280, 720};

// Shows `window` (at `size` when valid) and waits until it is active, so that key clicks reach it.
inline bool showActive(QWidget& window, QSize size = {})
{
    if (size.isValid())
        window.resize(size);
    window.show();
    return QTest::qWaitForWindowActive(&window);
}

// Opens `path` in a main window (anything with openFile and traceChanged) and waits until a
// trace is shown.
template <class Window>
bool openAndWait(Window& window, const QString& path, int timeoutMs = 30000)
{
    QSignalSpy changed(&window, &Window::traceChanged);
    window.openFile(path);
    return changed.wait(timeoutMs) && window.trace();
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
