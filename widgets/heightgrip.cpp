#include "widgets/heightgrip.h"

#include <QMouseEvent>
#include <QPainter>
#include <QStyle>
#include <QStyleOption>

namespace ks {

HeightGrip::HeightGrip(QWidget* parent)
    : QWidget(parent)
{
    setCursor(Qt::SizeVerCursor);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tr("Drag to show more or fewer rows"));
}

QSize HeightGrip::sizeHint() const { return {20, 6}; }

void HeightGrip::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    m_pressY = int(event->globalPosition().y());
    event->accept();
}

void HeightGrip::mouseMoveEvent(QMouseEvent* event)
{
    if (m_pressY < 0)
        return QWidget::mouseMoveEvent(event);
    Q_EMIT dragged(int(event->globalPosition().y()) - m_pressY);
    event->accept();
}

void HeightGrip::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_pressY < 0 || event->button() != Qt::LeftButton)
        return QWidget::mouseReleaseEvent(event);
    m_pressY = -1;
    Q_EMIT released();
    event->accept();
}

void HeightGrip::paintEvent(QPaintEvent*)
{
    // The style's splitter handle: users know it as "drag me".
    QPainter painter(this);
    QStyleOption option;
    option.initFrom(this);
    option.state &= ~QStyle::State_Horizontal; // a horizontal bar: a vertical splitter's handle
    style()->drawControl(QStyle::CE_Splitter, &option, &painter, this);
}

} // namespace ks
