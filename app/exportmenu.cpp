#include "app/exportmenu.h"

#include "widgets/tableexport.h"
#include "widgets/timelineimage.h"
#include "widgets/timelinewidget.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QInputDialog>
#include <QMainWindow>
#include <QMessageBox>
#include <QTableView>

namespace ks {

ExportMenu::ExportMenu(QMainWindow* window, TimelineWidget* timeline)
    : QMenu(tr("&Export"), window)
    , m_window(window)
    , m_timeline(timeline)
{
    connect(this, &QMenu::aboutToShow, this, &ExportMenu::rebuild);
}

void ExportMenu::rebuild()
{
    clear();
    addAction(tr("Timeline as PNG…"), this, &ExportMenu::exportTimelineImage)
        ->setEnabled(m_timeline->trace() != nullptr);
    addSeparator();
    for (QDockWidget* dock : m_window->findChildren<QDockWidget*>()) {
        auto* view = dock->findChild<QTableView*>();
        if (!view || !view->model())
            continue;
        const QString name = dock->windowTitle();
        addAction(tr("%1 as CSV…").arg(name), this, [this, view, name] {
            exportModelCsvInteractively(*view->model(), name.toLower().replace(QLatin1Char(' '), QLatin1Char('-')),
                                        m_window);
        });
    }
}

void ExportMenu::exportTimelineImage()
{
    bool ok = false;
    const int width = QInputDialog::getInt(m_window, tr("Export Timeline"), tr("Width (pixels):"), m_timeline->width(),
                                           100, 16384, 1, &ok);
    if (!ok)
        return;
    const int height = QInputDialog::getInt(m_window, tr("Export Timeline"), tr("Height (pixels):"),
                                            m_timeline->height(), 100, 16384, 1, &ok);
    if (!ok)
        return;
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export Timeline"), QStringLiteral("timeline.png"),
                                                      tr("PNG images (*.png);;All files (*)"));
    QString error;
    if (!path.isEmpty() && !saveTimelineImage(*m_timeline, QSize(width, height), path, &error))
        QMessageBox::warning(m_window, tr("Export Timeline"), tr("Cannot write %1: %2").arg(path, error));
}

} // namespace ks
