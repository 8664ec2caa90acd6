#pragma once
// An SVG file of a given size written by a paint callback (the timeline's and the charts'
// export): the file's error, if any, goes to `error`.
#include <QSize>
#include <QString>

#include <functional>

class QSvgGenerator;

namespace ks {

bool writeSvgFile(const QString& path, QSize size, const QString& title,
                  const std::function<void(QSvgGenerator&)>& paint, QString* error);

} // namespace ks
