#include "app/aboutdialog.h"

#include "collector/host/launcher.h"
#include "core/version.h"

#include <QMessageBox>
#include <QString>
#include <qcustomplot.h>

namespace ks {

namespace {

QString cuptiText()
{
    const QString api = QString::fromLatin1(kCuptiApiVersion);
    if (api.isEmpty())
        return QMessageBox::tr("not built (no CUPTI when this build was configured)");
    return QMessageBox::tr("CUDA %1 (CUPTI API %2)").arg(QString::fromLatin1(kCudaToolkitVersion), api);
}

QString collectorText()
{
    std::string error;
    if (const auto library = collector::findInjectionLibrary(error))
        return QString::fromStdString(*library).toHtmlEscaped();
    return QMessageBox::tr("unavailable: %1").arg(QString::fromStdString(error).toHtmlEscaped());
}

} // namespace

void showAboutDialog(QWidget* parent)
{
    const QString text =
        QMessageBox::tr("<h3>Kinetoscope %1</h3>"
                        "<p>A viewer for PyTorch profiler traces and a CUPTI collector.</p>"
                        "<p><a href=\"%7\">%7</a></p>"
                        "<table>"
                        "<tr><td>Qt</td><td>%2 (built with %3)</td></tr>"
                        "<tr><td>QCustomPlot</td><td>%4</td></tr>"
                        "<tr><td>CUPTI</td><td>%5</td></tr>"
                        "<tr><td>Collector library&nbsp;</td><td>%6</td></tr>"
                        "</table>")
            .arg(QString::fromLatin1(kVersion), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
                 QStringLiteral(QCUSTOMPLOT_VERSION_STR), cuptiText(), collectorText(), QString::fromLatin1(kHomepage));
    QMessageBox::about(parent, QMessageBox::tr("About Kinetoscope"), text);
}

} // namespace ks
