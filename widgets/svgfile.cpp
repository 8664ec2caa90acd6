#include "widgets/svgfile.h"

#include <QFile>
#include <QRect>
#include <QSvgGenerator>

namespace ks {

bool writeSvgFile(const QString& path, QSize size, const QString& title,
                  const std::function<void(QSvgGenerator&)>& paint, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        if (error)
            *error = file.errorString();
        return false;
    }
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    if (!title.isEmpty())
        svg.setTitle(title);
    paint(svg); // the painter ends before the file closes
    file.close();
    if (file.error() == QFileDevice::NoError)
        return true;
    if (error)
        *error = file.errorString();
    return false;
}

} // namespace ks
