#pragma once
// The timeline as an image of a chosen size (File ▸ Export ▸ Timeline as PNG / SVG): an
// offscreen timeline of that size shows the same trace, time range and marks and is painted
// into the image, or into an SVG file (QSvgGenerator: vector shapes and text). The primary
// trace only (a comparison's other traces are left out). GUI thread only.
#include <QImage>
#include <QSize>
#include <QString>

namespace ks {

class TimelineWidget;

QImage renderTimelineImage(const TimelineWidget& source, QSize size);
// SVG where the path ends in ".svg", else PNG (or any format Qt infers from the suffix);
// false with `error` set when it fails.
bool saveTimelineImage(const TimelineWidget& source, QSize size, const QString& path, QString* error = nullptr);

} // namespace ks
