#pragma once
// The timeline as an image of a chosen size (File ▸ Export ▸ Timeline as PNG): an offscreen
// timeline of that size shows the same trace and time range and is painted into the image.
// The primary trace only (a comparison's other traces are left out). GUI thread only.
#include <QImage>
#include <QSize>
#include <QString>

namespace ks {

class TimelineWidget;

QImage renderTimelineImage(const TimelineWidget& source, QSize size);
// PNG (or any format Qt infers from the suffix); false with `error` set when it fails.
bool saveTimelineImage(const TimelineWidget& source, QSize size, const QString& path, QString* error = nullptr);

} // namespace ks
