#pragma once
// File ▸ Open Recent: the last files opened, newest first, kept in QSettings ("recentFiles").
#include <QObject>
#include <QString>

class QMenu;

namespace ks {

class RecentFiles : public QObject {
    Q_OBJECT
public:
    // Fills `menu` (which it does not own) with the remembered files.
    explicit RecentFiles(QMenu* menu, QObject* parent = nullptr);

    // Puts the file first (by its absolute path), forgetting the oldest past the limit.
    void add(const QString& path);

Q_SIGNALS:
    void openRequested(const QString& path);

private:
    void rebuildMenu();

    QMenu* m_menu;
};

} // namespace ks
