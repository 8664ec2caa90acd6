// The timeline to an image of a chosen size: the same trace, range and marks painted at that
// size, and written as a PNG that reads back, or as an SVG of that size holding the labels.
#include "fixture.h"
#include "widgets/timelineimage.h"
#include "widgets/timelinewidget.h"

#include <QFile>
#include <QRegularExpression>
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

    void svgHasTheSizeTheLabelsAndTheMarks()
    {
        TimelineWidget timeline;
        timeline.resize(900, 500);
        const auto trace = test::loadFixture("train_baseline");
        timeline.setTrace(trace);
        const TimeNs middle = trace->startTime() + (trace->endTime() - trace->startTime()) / 2;
        timeline.setMarks({{middle, middle, "here"}});
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("timeline.svg"));
        QString error;
        QVERIFY2(saveTimelineImage(timeline, QSize(1200, 600), path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString svg = QString::fromUtf8(file.readAll());
        QVERIFY(svg.contains(QStringLiteral("viewBox=\"0 0 1200 600\"")));
        // Text stays text: the name of a process group as the label column shows it.
        const Process& gpu = *std::find_if(trace->processes().begin(), trace->processes().end(),
                                           [](const Process& p) { return p.isDevice; });
        QVERIFY(gpu.deviceIndex >= 0);
        QVERIFY(svg.contains(QRegularExpression(QStringLiteral(">[^<]*GPU %1[^<]*<").arg(gpu.deviceIndex))));
        // The mark's orange flag.
        QVERIFY(svg.contains(QStringLiteral("#d65c14"), Qt::CaseInsensitive));
        QVERIFY(!saveTimelineImage(timeline, QSize(640, 360), dir.filePath(QStringLiteral("no/dir.svg")), &error));

        // The PNG has the flag in its ruler; without the mark, nothing of that colour.
        const auto flagPixels = [](const QImage& image) {
            int n = 0;
            for (int x = 0; x < image.width(); ++x)
                n += image.pixelColor(x, TimelineRenderer::kRulerHeight - 4) == QColor(214, 92, 20);
            return n;
        };
        QVERIFY(flagPixels(renderTimelineImage(timeline, QSize(1200, 600))) >= 3);
        timeline.setMarks({});
        QCOMPARE(flagPixels(renderTimelineImage(timeline, QSize(1200, 600))), 0);
    }
};

QTEST_MAIN(TestTimelineImage)
#include "tst_timelineimage.moc"
