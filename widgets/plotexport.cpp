#include "widgets/plotexport.h"
#include "widgets/svgfile.h"

#include <qcustomplot.h>

#include <QFile>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QSvgGenerator>

namespace ks {

namespace {

bool savePlotSvg(QCustomPlot& plot, const QString& path, QSize size, QString* error)
{
    return writeSvgFile(
        path, size, QString(),
        [&](QSvgGenerator& svg) {
            QCPPainter painter(&svg);
            plot.toPainter(&painter, size.width(), size.height());
        },
        error);
}

} // namespace

bool savePlot(QCustomPlot& plot, const QString& path, QSize size, QString* error)
{
    if (size.isEmpty())
        size = plot.size();
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
        return savePlotSvg(plot, path, size, error);
    const bool pdf = path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive);
    const bool ok =
        pdf ? plot.savePdf(path, size.width(), size.height()) : plot.savePng(path, size.width(), size.height());
    if (!ok && error)
        *error = QFile::exists(path) ? QObject::tr("the image could not be written")
                                     : QObject::tr("the file could not be created");
    return ok;
}

void addPlotExportMenu(QCustomPlot* plot, const QString& suggestedName)
{
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(plot, &QWidget::customContextMenuRequested, plot, [plot, suggestedName](const QPoint& pos) {
        QMenu menu(plot);
        for (const QString& format : {QStringLiteral("PNG"), QStringLiteral("SVG"), QStringLiteral("PDF")}) {
            menu.addAction(QObject::tr("Export as %1…").arg(format), plot, [plot, suggestedName, format] {
                const QString suffix = format.toLower();
                const QString path = QFileDialog::getSaveFileName(
                    plot, QObject::tr("Export Chart"), suggestedName + QLatin1Char('.') + suffix,
                    QObject::tr("%1 files (*.%2);;All files (*)").arg(format, suffix));
                QString error;
                if (!path.isEmpty() && !savePlot(*plot, path, {}, &error))
                    QMessageBox::warning(plot, QObject::tr("Export Chart"),
                                         QObject::tr("Cannot write %1: %2").arg(path, error));
            });
        }
        menu.exec(plot->mapToGlobal(pos));
    });
}

} // namespace ks
