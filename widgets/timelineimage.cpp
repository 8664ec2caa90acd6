#include "widgets/timelineimage.h"

#include "widgets/timelinewidget.h"

#include <QImageWriter>

namespace ks {

QImage renderTimelineImage(const TimelineWidget& source, QSize size)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(source.palette().color(QPalette::Base));
    if (size.isEmpty())
        return image;
    TimelineWidget copy;
    copy.setAttribute(Qt::WA_DontShowOnScreen);
    copy.resize(size);
    copy.show(); // laid out at its size before the trace and range come
    copy.setTrace(source.trace());
    const TimeScale scale = source.timeScale();
    copy.setVisibleRange(scale.viewStart(), scale.viewEnd(source.width()));
    copy.render(&image);
    return image;
}

bool saveTimelineImage(const TimelineWidget& source, QSize size, const QString& path, QString* error)
{
    QImageWriter writer(path);
    if (writer.write(renderTimelineImage(source, size)))
        return true;
    if (error)
        *error = writer.errorString();
    return false;
}

} // namespace ks
