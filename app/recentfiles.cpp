#include "app/recentfiles.h"

#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace ks {

namespace {

constexpr int kMaxRecentFiles = 10;
const char* const kRecentFilesKey = "recentFiles";

} // namespace

RecentFiles::RecentFiles(QMenu* menu, QObject* parent)
    : QObject(parent)
    , m_menu(menu)
{
    rebuildMenu();
}

void RecentFiles::add(const QString& path)
{
    QSettings settings;
    QStringList files = settings.value(QLatin1String(kRecentFilesKey)).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    settings.setValue(QLatin1String(kRecentFilesKey), files);
    rebuildMenu();
}

void RecentFiles::rebuildMenu()
{
    m_menu->clear();
    const QStringList files = QSettings().value(QLatin1String(kRecentFilesKey)).toStringList();
    for (const QString& path : files)
        m_menu->addAction(QFileInfo(path).fileName(), this, [this, path] { Q_EMIT openRequested(path); })
            ->setToolTip(path);
    m_menu->setEnabled(!files.isEmpty());
}

} // namespace ks
