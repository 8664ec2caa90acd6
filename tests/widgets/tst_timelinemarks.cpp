// The marks on the ruler (widgets/timelinemarks): a flag at each mark's start, a bar under a
// range; markAt() finds the nearest flag, else the range under the bar, and nothing below the
// ruler or left of the time area.
#include "widgets/timelinemarks.h"

#include <QImage>
#include <QPainter>
#include <QTest>

using namespace ks;

class TestTimelineMarks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void paintsAndFindsMarks()
    {
        constexpr int ruler = 26;
        const QRect area(100, 0, 400, 200);
        // 1 ns per pixel from x = 100.
        const TimelineMarks::XOf xOf = [](TimeNs t) { return 100.0 + double(t); };
        TimelineMarks marks;
        marks.setMarks({{50, 50, "point"}, {200, 300, "range"}, {53, 53, "close by"}});
        QCOMPARE(marks.markAt(QPoint(150, ruler - 4), area, ruler, xOf), 0);
        QCOMPARE(marks.markAt(QPoint(153, ruler - 4), area, ruler, xOf), 2); // the nearer flag
        QCOMPARE(marks.markAt(QPoint(301, ruler - 6), area, ruler, xOf), 1); // the range's flag
        QCOMPARE(marks.markAt(QPoint(350, ruler - 2), area, ruler, xOf), 1); // its bar
        QCOMPARE(marks.markAt(QPoint(350, ruler - 7), area, ruler, xOf), -1); // above the bar
        QCOMPARE(marks.markAt(QPoint(150, ruler + 3), area, ruler, xOf), -1); // on the tracks
        QCOMPARE(marks.markAt(QPoint(450, ruler - 2), area, ruler, xOf), -1);

        QImage image(QSize(500, 200), QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            marks.paint(painter, area, ruler, xOf);
        }
        const QColor flag(214, 92, 20);
        QCOMPARE(image.pixelColor(150, ruler - 4), flag);
        QCOMPARE(image.pixelColor(300, ruler - 4), flag);
        QVERIFY(image.pixelColor(350, ruler - 2) != QColor(Qt::white)); // the bar
        QCOMPARE(image.pixelColor(350, ruler - 7), QColor(Qt::white));
        // A dashed line down the tracks at the range's end (x 400), none past it.
        const auto inked = [&](int x) {
            int n = 0;
            for (int y = ruler; y < image.height(); ++y)
                n += image.pixelColor(x, y) != QColor(Qt::white);
            return n;
        };
        QVERIFY(inked(399) + inked(400) > 50);
        QCOMPARE(inked(450), 0);
    }
};

QTEST_MAIN(TestTimelineMarks)
#include "tst_timelinemarks.moc"
