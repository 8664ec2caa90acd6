#pragma once
// What a timeline draws in its viewport, as an image (TimelineWidget::renderTo): the widget
// tests read pixels of it.
#include "widgets/timelinewidget.h"

#include <QImage>
#include <QPainter>

namespace kstest {

inline QImage renderedTimeline(ks::TimelineWidget& timeline)
{
    QImage image(timeline.viewport()->size(), QImage::Format_RGB32);
    QPainter painter(&image);
    timeline.renderTo(painter);
    return image;
}

} // namespace kstest
