#include "widgets/timelineimage.h"

#include "widgets/svgfile.h"
#include "widgets/timelinewidget.h"

#include <QFile>
#include <QImageWriter>
#include <QPainter>
#include <QSvgGenerator>

namespace ks {

namespace {

// Paints an offscreen copy of `source` at `size`: the same trace, time range and marks.
template <typename Paint>
void paintCopy(const TimelineWidget& source, QSize size, const Paint& paint)
{
    TimelineWidget copy;
    copy.setAttribute(Qt::WA_DontShowOnScreen);
    copy.resize(size);
    copy.show(); // laid out at its size before the trace and range come
    copy.setTrace(source.trace());
    copy.setMarks(source.marks().marks());
    const TimeScale scale = source.timeScale();
    copy.setVisibleRange(scale.viewStart(), scale.viewEnd(source.timeAreaWidth()));
    paint(copy);
}

bool saveTimelineSvg(const TimelineWidget& source, QSize size, const QString& path, QString* error)
{
    return writeSvgFile(
        path, size, QStringLiteral("Kinetoscope timeline"),
        [&](QSvgGenerator& svg) {
            paintCopy(source, size, [&](TimelineWidget& copy) {
                QPainter painter(&svg);
                copy.renderTo(painter);
            });
        },
        error);
}

} // namespace

QImage renderTimelineImage(const TimelineWidget& source, QSize size)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(source.palette().color(QPalette::Base));
    if (size.isEmpty())
        return image;
    paintCopy(source, size, [&](TimelineWidget& copy) { copy.render(&image); });
    return image;
}

bool saveTimelineImage(const TimelineWidget& source, QSize size, const QString& path, QString* error)
{
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
        return saveTimelineSvg(source, size, path, error);
    QImageWriter writer(path);
    if (writer.write(renderTimelineImage(source, size)))
        return true;
    if (error)
        *error = writer.errorString();
    return false;
}

} // namespace ks
