#include "core/timeline/timescale.h"

#include <QTest>

using namespace ks;

class TestTimeScale : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mapsTimeToPixels()
    {
        const TimeScale scale(1'000'000, 10.0); // 10 ns per pixel
        QCOMPARE(scale.timeToX(1'000'000), 0.0);
        QCOMPARE(scale.timeToX(1'001'000), 100.0);
        QCOMPARE(scale.xToTime(100.0), TimeNs(1'001'000));
        QCOMPARE(scale.viewEnd(1920), TimeNs(1'019'200));
    }

    // Absolute-epoch traces: 1.7e18 ns does not fit a double's 53-bit mantissa, so the
    // view start must be subtracted as an integer first.
    void keepsNanosecondsAtEpochTimes()
    {
        const TimeNs epoch = 1'790'857'026'123'456'789;
        const TimeScale scale(epoch, 0.5);
        QCOMPARE(scale.timeToX(epoch + 1), 2.0);
        QCOMPARE(scale.timeToX(epoch + 3), 6.0);
        QCOMPARE(scale.xToTime(6.0), epoch + 3);
    }

    void fitShowsRange()
    {
        const TimeScale scale = TimeScale::fit(500, 2500, 1000);
        QCOMPARE(scale.viewStart(), TimeNs(500));
        QCOMPARE(scale.nsPerPixel(), 2.0);
        QCOMPARE(scale.viewEnd(1000), TimeNs(2500));
    }

    void zoomAtCursorKeepsTimeUnderCursor_data()
    {
        QTest::addColumn<TimeNs>("start");
        QTest::addColumn<double>("nsPerPixel");
        QTest::addColumn<double>("x");
        QTest::addColumn<double>("factor");
        QTest::newRow("in at left third") << TimeNs(4'441'053'500'240'926) << 13'783.0 << 640.0 << 0.8;
        QTest::newRow("out at right edge") << TimeNs(0) << 1.0 << 1920.0 << 1.25;
        QTest::newRow("deep in at pixel 1") << TimeNs(1'000'000'000) << 2.0 << 1.0 << 0.01;
        QTest::newRow("epoch, 10x in") << TimeNs(1'790'857'026'000'000'000) << 1000.0 << 333.0 << 0.1;
    }

    void zoomAtCursorKeepsTimeUnderCursor()
    {
        QFETCH(TimeNs, start);
        QFETCH(double, nsPerPixel);
        QFETCH(double, x);
        QFETCH(double, factor);
        const TimeScale before(start, nsPerPixel);
        const TimeScale after = before.zoomedAt(x, factor);
        QVERIFY(std::abs(after.nsPerPixel() - std::max(nsPerPixel * factor, TimeScale::kMinNsPerPixel)) < 1e-9);
        // The anchored time moves by less than a nanosecond (rounding of the offset only).
        QVERIFY(std::abs(after.xToTime(x) - before.xToTime(x)) <= 1);
        // Zooming back restores the view within a nanosecond.
        const TimeScale back = after.zoomedAt(x, 1.0 / factor);
        QVERIFY(std::abs(back.viewStart() - start) <= 1);
    }

    void panMovesByPixels()
    {
        const TimeScale scale(1000, 4.0);
        QCOMPARE(scale.pannedBy(25).viewStart(), TimeNs(1100));
        QCOMPARE(scale.pannedBy(-25).viewStart(), TimeNs(900));
        QCOMPARE(scale.pannedBy(25).nsPerPixel(), 4.0);
    }

    void clampKeepsViewInsideTrace()
    {
        // Zoomed out past the trace: clamps to showing exactly the trace.
        const TimeScale wide = TimeScale(-5000, 100.0).clampedTo(0, 10'000, 100);
        QCOMPARE(wide.viewStart(), TimeNs(0));
        QCOMPARE(wide.nsPerPixel(), 100.0);
        // Panned past the end: pulled back so the view ends at the trace end.
        const TimeScale late = TimeScale(9'900, 10.0).clampedTo(0, 10'000, 100);
        QCOMPARE(late.viewStart(), TimeNs(9'000));
        QCOMPARE(late.nsPerPixel(), 10.0);
    }

    void rulerStepsAreOneTwoFive()
    {
        QCOMPARE(rulerTickStep(1.0, 90), TimeNs(100));
        QCOMPARE(rulerTickStep(13'783.0, 90), TimeNs(2'000'000));
        QCOMPARE(rulerTickStep(0.01, 90), TimeNs(1));
        QCOMPARE(rulerTickStep(30.0, 90), TimeNs(5000));
    }

    // Issue 35: "45000.000 µs" and "2000.000 ms" read as "45 ms" and "2 s".
    void rulerLabelsUseTheLargestUnitWithoutTrailingZeros_data()
    {
        QTest::addColumn<std::int64_t>("time");
        QTest::addColumn<std::int64_t>("step");
        QTest::addColumn<std::string>("label");
        QTest::newRow("45 ms on a 5 ms step")
            << std::int64_t(45'000'000) << std::int64_t(5'000'000) << std::string("45 ms");
        QTest::newRow("45 ms on a 5 µs step")
            << std::int64_t(45'000'000) << std::int64_t(5'000) << std::string("45 ms");
        QTest::newRow("2 s on a 500 ms step")
            << std::int64_t(2'000'000'000) << std::int64_t(500'000'000) << std::string("2 s");
        QTest::newRow("2.5 s") << std::int64_t(2'500'000'000) << std::int64_t(500'000'000) << std::string("2.5 s");
        QTest::newRow("45.002 ms") << std::int64_t(45'002'000) << std::int64_t(2'000) << std::string("45.002 ms");
        QTest::newRow("45.0002 ms") << std::int64_t(45'000'200) << std::int64_t(200) << std::string("45.0002 ms");
        QTest::newRow("800 µs") << std::int64_t(800'000) << std::int64_t(200'000) << std::string("800 µs");
        QTest::newRow("1.2 ms") << std::int64_t(1'200'000) << std::int64_t(200'000) << std::string("1.2 ms");
        QTest::newRow("50 ns") << std::int64_t(50) << std::int64_t(10) << std::string("50 ns");
        QTest::newRow("1.005 µs") << std::int64_t(1'005) << std::int64_t(5) << std::string("1.005 µs");
        QTest::newRow("zero in the step's unit") << std::int64_t(0) << std::int64_t(5'000'000) << std::string("0 ms");
        QTest::newRow("negative") << std::int64_t(-1'500'000) << std::int64_t(500'000) << std::string("-1.5 ms");
        QTest::newRow("a minute") << std::int64_t(60'000'000'000) << std::int64_t(10'000'000'000)
                                  << std::string("60 s");
    }

    void rulerLabelsUseTheLargestUnitWithoutTrailingZeros()
    {
        QFETCH(std::int64_t, time);
        QFETCH(std::int64_t, step);
        QFETCH(std::string, label);
        QCOMPARE(rulerLabel(time, step), label);
    }
};

QTEST_APPLESS_MAIN(TestTimeScale)
#include "tst_timescale.moc"
