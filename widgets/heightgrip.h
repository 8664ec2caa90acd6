#pragma once
// A thin bar under a widget of fixed height (the search results list) that the user drags to
// make the widget taller or shorter. GUI thread only.
#include <QWidget>

namespace ks {

class HeightGrip : public QWidget {
    Q_OBJECT
public:
    explicit HeightGrip(QWidget* parent = nullptr);
    QSize sizeHint() const override;

Q_SIGNALS:
    // The pointer moved `dy` pixels down (negative: up) since the press.
    void dragged(int dy);
    // The drag ended: the time to remember the new height.
    void released();

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    int m_pressY = -1; // global y of the press, -1 when not dragging
};

} // namespace ks
