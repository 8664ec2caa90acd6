// The timeline to an image of a chosen size: the same trace and range painted at that size,
// and written as a PNG that reads back.
#include "fixture.h"
#include "widgets/timelineimage.h"
#include "widgets/timelinewidget.h"

#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;

class TestTimelineImage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void paintsTheTraceAtTheChosenSize()
    {
        TimelineWidget timeline;
        timeline.resize(900, 500);
        timeline.setTrace(test::loadFixture("train_baseline"));
        const QImage image = renderTimelineImage(timeline, QSize(1600, 700));
        QCOMPARE(image.size(), QSize(1600, 700));
        QSet<QRgb> colors; // slices, labels and the ruler: many colors, not a blank image
        for (int y = 0; y < image.height(); y += 7) {
            for (int x = 0; x < image.width(); x += 7)
                colors.insert(image.pixel(x, y));
        }
        QVERIFY(colors.size() > 20);
        // Without a trace: the background only.
        TimelineWidget empty;
        const QImage blank = renderTimelineImage(empty, QSize(300, 200));
        QCOMPARE(blank.size(), QSize(300, 200));

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("timeline.png"));
        QVERIFY(saveTimelineImage(timeline, QSize(640, 360), path));
        const QImage back(path);
        QCOMPARE(back.size(), QSize(640, 360));
        QString error;
        QVERIFY(!saveTimelineImage(timeline, QSize(640, 360), dir.filePath(QStringLiteral("no/dir.png")), &error));
        QVERIFY(!error.isEmpty());
    }
};

QTEST_MAIN(TestTimelineImage)
#include "tst_timelineimage.moc"
