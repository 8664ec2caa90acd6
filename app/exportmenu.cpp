#include "app/exportmenu.h"

#include "widgets/tableexport.h"
#include "widgets/timelineimage.h"
#include "widgets/timelinewidget.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QInputDialog>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QTableView>

namespace ks {

QString exportedTableTitle(const QString& dockTitle, const QTableView& view, bool severalInDock)
{
    if (!severalInDock || !view.model())
        return dockTitle;
    if (!view.accessibleName().isEmpty())
        return QObject::tr("%1 (%2)").arg(dockTitle, view.accessibleName());
    QStringList columns;
    for (int c = 0; c < std::min(2, view.model()->columnCount()); ++c)
        columns << view.model()->headerData(c, Qt::Horizontal).toString();
    return QObject::tr("%1 (%2)").arg(dockTitle, columns.join(QStringLiteral(", ")));
}

void exportTimelineInteractively(TimelineWidget& timeline, const QString& format, QMainWindow& window)
{
    bool ok = false;
    const QString title = QObject::tr("Export Timeline");
    const int width =
        QInputDialog::getInt(&window, title, QObject::tr("Width (pixels):"), timeline.width(), 100, 16384, 1, &ok);
    if (!ok)
        return;
    const int height =
        QInputDialog::getInt(&window, title, QObject::tr("Height (pixels):"), timeline.height(), 100, 16384, 1, &ok);
    if (!ok)
        return;
    const QString suffix = format.toLower();
    const QString path =
        QFileDialog::getSaveFileName(&window, title, QStringLiteral("timeline.") + suffix,
                                     QObject::tr("%1 images (*.%2);;All files (*)").arg(format, suffix));
    QString error;
    if (!path.isEmpty() && !saveTimelineImage(timeline, QSize(width, height), path, &error))
        QMessageBox::warning(&window, title, QObject::tr("Cannot write %1: %2").arg(path, error));
}

void installExportMenu(QMenu& menu, QMainWindow& window, TimelineWidget& timeline)
{
    QObject::connect(&menu, &QMenu::aboutToShow, &window, [&menu, &window, &timeline] {
        menu.clear();
        for (const QString& format : {QStringLiteral("PNG"), QStringLiteral("SVG")}) {
            menu.addAction(QObject::tr("Timeline as %1…").arg(format), &window,
                           [&window, &timeline, format] { exportTimelineInteractively(timeline, format, window); })
                ->setEnabled(timeline.trace() != nullptr);
        }
        menu.addSeparator();
        QStringList used;
        for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
            const QList<QTableView*> views = dock->findChildren<QTableView*>();
            for (QTableView* view : views) {
                if (!view->model())
                    continue;
                QString name = exportedTableTitle(dock->windowTitle(), *view, views.size() > 1);
                // Tables without headers yet (a dock waiting for its workspace) stay apart.
                for (int n = 2; used.contains(name); ++n)
                    name = exportedTableTitle(dock->windowTitle(), *view, true) + QStringLiteral(" %1").arg(n);
                used << name;
                menu.addAction(QObject::tr("%1 as CSV…").arg(name), &window, [&window, view, name] {
                    exportModelCsvInteractively(*view->model(),
                                                name.toLower().replace(QLatin1Char(' '), QLatin1Char('-')), &window);
                });
            }
        }
    });
}

} // namespace ks
