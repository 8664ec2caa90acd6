// Where the view goes to reveal a slice (core/timeline/revealview.h): zoomed in to 8 px and
// centred when it is tiny and off-screen, left alone when it is in sight, fitted with a tenth
// of margin when it fills the view, kept inside the axis; the row scrolled into the middle.
#include "core/timeline/revealview.h"

#include <QTest>

using namespace ks;

namespace {

constexpr TimeExtent kAxis{0, 100'000'000}; // 100 ms
constexpr double kWidth = 1000; // px

} // namespace

class TestRevealView : public QObject {
    Q_OBJECT
private slots:
    void tinySliceOffScreenIsZoomedToEightPixelsAndCentred()
    {
        const TimeScale whole(0, 100'000); // the 100 ms at 100 µs a pixel
        const TimeScale scale = scaleToReveal(whole, {5'000'000, 5'001'000}, kWidth, kAxis);
        QCOMPARE(scale.nsPerPixel(), 125.0); // 1 µs on 8 px
        QCOMPARE(scale.viewStart(), TimeNs(4'938'000));
        QCOMPARE(scale.timeToX(5'000'000), 496.0);
        QCOMPARE(scale.timeToX(5'001'000), 504.0);
    }

    void sliceInSightAndWideEnoughKeepsTheView()
    {
        const TimeScale whole(0, 100'000);
        QVERIFY(scaleToReveal(whole, {10'000'000, 20'000'000}, kWidth, kAxis) == whole); // 100 px
    }

    void sliceFillingTheViewIsFittedWithMargins()
    {
        const TimeScale view(10'000'000, 10'000); // 10 ms to 20 ms
        const TimeScale scale = scaleToReveal(view, {11'000'000, 20'500'000}, kWidth, kAxis); // 950 px
        QCOMPARE(scale.viewStart(), TimeNs(10'050'000)); // a tenth of 9.5 ms before
        QCOMPARE(scale.nsPerPixel(), 11'400.0); // 9.5 ms and two tenths across 1000 px
        QVERIFY(scale == scaleAroundSlice({11'000'000, 20'500'000}, kWidth));
    }

    void centringStopsAtTheAxisStart()
    {
        const TimeScale view(50'000'000, 10'000);
        const TimeScale scale = scaleToReveal(view, {1'000, 41'000}, kWidth, kAxis); // 4 px, 50 ms away
        QCOMPARE(scale.nsPerPixel(), 5'000.0);
        QCOMPARE(scale.viewStart(), TimeNs(0)); // centred it would start at -2.479 ms
    }

    void rowOutOfSightIsScrolledToTheMiddle()
    {
        QCOMPARE(scrollToReveal(500, 20, 0, 400), std::optional<int>(300));
        QCOMPARE(scrollToReveal(390, 20, 0, 400), std::optional<int>(190)); // half out at the bottom
        QCOMPARE(scrollToReveal(90, 20, 100, 400), std::optional<int>(-110)); // above: the scroll bar clamps
        QVERIFY(!scrollToReveal(100, 20, 0, 400)); // in sight
        QVERIFY(!scrollToReveal(-1, 20, 0, 400)); // hidden (a collapsed group)
    }
};

QTEST_APPLESS_MAIN(TestRevealView)
#include "tst_revealview.moc"
