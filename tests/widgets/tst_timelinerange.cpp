// Range selection on the timeline (issue 19 item 5): Shift+drag on the tracks or a drag on
// the ruler selects a range, F zooms to it, Esc clears it, and the Range table follows it.
#include "fixture.h"
#include "timelineimage.h"
#include "widgets/statspanel.h"
#include "widgets/statsrangemodel.h"
#include "widgets/timelinewidget.h"
#include "windowtesting.h"

#include <QImage>
#include <QSignalSpy>
#include <QTest>

using namespace ks;

class TestTimelineRange : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const Trace> m_trace;

    std::unique_ptr<TimelineWidget> makeWidget()
    {
        auto widget = std::make_unique<TimelineWidget>();
        widget->resize(1280, 700);
        widget->show();
        [[maybe_unused]] const bool exposed = QTest::qWaitForWindowExposed(widget.get());
        widget->setTrace(m_trace);
        return widget;
    }

    // Drags with the left button from x0 to x1 at height y, holding `modifiers`.
    static void drag(QWidget* viewport, int x0, int x1, int y, Qt::KeyboardModifiers modifiers)
    {
        QTest::mousePress(viewport, Qt::LeftButton, modifiers, QPoint(x0, y));
        for (int step = 1; step <= 4; ++step) {
            QMouseEvent move(QEvent::MouseMove, QPointF(x0 + (x1 - x0) * step / 4.0, y),
                             viewport->mapToGlobal(QPointF(x0 + (x1 - x0) * step / 4.0, y)), Qt::NoButton,
                             Qt::LeftButton, modifiers);
            QCoreApplication::sendEvent(viewport, &move);
        }
        QTest::mouseRelease(viewport, Qt::LeftButton, modifiers, QPoint(x1, y));
    }

private Q_SLOTS:
    void initTestCase()
    {
        kstest::useTestSettings();
        m_trace = test::loadFixture("train_baseline");
    }

    // The range's label never covers the hover cursor's time on the ruler (a narrow range
    // ending under the cursor: its centred label would overlap it), and it stays readable.
    void rangeLabelLeavesTheCursorTime()
    {
        auto w = makeWidget();
        drag(w->viewport(), 600, 640, 300, Qt::ShiftModifier);
        QVERIFY(w->hasSelectedRange());
        const QImage image = kstest::renderedTimeline(*w);
        const QColor cursorLabel(30, 90, 200); // the renderer's cursor colour
        const int y = TimelineRenderer::kRulerHeight / 2;
        QCOMPARE(QColor(image.pixel(640 + 3, y)), cursorLabel);
        // The range's label moved below the ruler, in the accent colour.
        const QColor accent = w->palette().color(QPalette::Highlight);
        int accentBelow = 0;
        for (int x = 560; x < 680; ++x)
            accentBelow += QColor(image.pixel(x, TimelineRenderer::kRulerHeight + 4)) == accent;
        QVERIFY2(accentBelow > 60, qPrintable(QString::number(accentBelow)));
    }

    void shiftDragSelectsRangeAndRangeTableSumsInsideIt()
    {
        auto w = makeWidget();
        StatsPanel range(new RangeAggregateModel);
        range.setTrace(m_trace);
        connect(w.get(), &TimelineWidget::rangeSelected, &range, &StatsPanel::setRange);
        connect(w.get(), &TimelineWidget::rangeCleared, &range, &StatsPanel::clearRange);
        QSignalSpy selected(w.get(), &TimelineWidget::rangeSelected);
        QSignalSpy updated(&range, &StatsPanel::rowsUpdated);
        QVERIFY(updated.wait()); // the whole trace first
        updated.clear();

        const int x0 = TimelineRenderer::kLabelWidth + 300, x1 = TimelineRenderer::kLabelWidth + 500;
        const TimeNs t0 = w->timeAtViewportX(x0), t1 = w->timeAtViewportX(x1);
        const TimeScale before = w->timeScale();
        drag(w->viewport(), x0, x1, 200, Qt::ShiftModifier);
        QCOMPARE(w->timeScale(), before); // Shift+drag selects, it does not pan
        QCOMPARE(selected.size(), 1);
        QVERIFY(w->hasSelectedRange());
        const TimeExtent sel = w->selectedRange();
        const TimeNs pixel = TimeNs(w->timeScale().nsPerPixel()) + 1;
        QVERIFY(std::abs(sel.start - t0) <= pixel && std::abs(sel.end - t1) <= pixel);
        QCOMPARE(selected[0][0].value<TimeNs>(), sel.start);
        QCOMPARE(selected[0][1].value<TimeNs>(), sel.end);

        QVERIFY(updated.wait());
        const auto& model = static_cast<const RangeAggregateModel&>(*range.model());
        QCOMPARE(model.aggregates().from, sel.start);
        QCOMPARE(model.aggregates().to, sel.end);
        // Independently: the slices overlapping [start, end), and the total time inside it.
        const SliceTable& slices = m_trace->slices();
        std::uint64_t inside = 0;
        TimeNs clipped = 0;
        for (SliceId s = 0; s < slices.size(); ++s) {
            const bool overlaps = slices.duration[s] == 0 ? slices.start[s] >= sel.start && slices.start[s] < sel.end
                                                          : slices.start[s] < sel.end && slices.end(s) > sel.start;
            if (overlaps) {
                ++inside;
                clipped += std::min(slices.end(s), sel.end) - std::max(slices.start[s], sel.start);
            }
        }
        std::uint64_t counted = 0;
        TimeNs total = 0;
        for (const RangeAggregateRow& row : model.aggregates().rows) {
            counted += row.count;
            total += row.total;
        }
        QVERIFY(inside > 100 && inside < slices.size() / 2);
        QCOMPARE(counted, inside);
        QCOMPARE(total, clipped);

        // F zooms to the range; Esc clears it and the table goes back to the whole trace.
        QTest::keyClick(w.get(), Qt::Key_F);
        QVERIFY(std::abs(w->timeScale().viewStart() - sel.start) <= 1);
        QVERIFY(std::abs(w->timeScale().viewEnd(w->timeAreaWidth()) - sel.end) <= pixel);
        QSignalSpy cleared(w.get(), &TimelineWidget::rangeCleared);
        updated.clear();
        QTest::keyClick(w.get(), Qt::Key_Escape);
        QCOMPARE(cleared.size(), 1);
        QVERIFY(!w->hasSelectedRange());
        QVERIFY(updated.wait());
        std::uint64_t all = 0;
        for (const RangeAggregateRow& row : model.aggregates().rows)
            all += row.count;
        QCOMPARE(all, std::uint64_t(slices.size()));
    }

    void dragOnRulerSelectsAndPlainDragOnTracksPans()
    {
        auto w = makeWidget();
        w->zoomAt(TimelineRenderer::kLabelWidth + 500, 0.25); // room to pan
        const int y = TimelineRenderer::kRulerHeight / 2;
        drag(w->viewport(), TimelineRenderer::kLabelWidth + 400, TimelineRenderer::kLabelWidth + 100, y, {});
        QVERIFY(w->hasSelectedRange());
        const TimeExtent sel = w->selectedRange();
        QVERIFY(sel.start < sel.end); // dragged leftwards: still ordered
        QCOMPARE(w->focusRange().start, sel.start);

        const TimeScale before = w->timeScale();
        drag(w->viewport(), TimelineRenderer::kLabelWidth + 400, TimelineRenderer::kLabelWidth + 300, 200, {});
        QVERIFY(w->timeScale().viewStart() > before.viewStart()); // panned
        QVERIFY(w->hasSelectedRange()); // and the range stays

        // A click on the ruler clears it.
        QSignalSpy cleared(w.get(), &TimelineWidget::rangeCleared);
        QTest::mouseClick(w->viewport(), Qt::LeftButton, {}, QPoint(TimelineRenderer::kLabelWidth + 50, y));
        QCOMPARE(cleared.size(), 1);
        QVERIFY(!w->hasSelectedRange());
        QCOMPARE(w->focusRange().start, w->timeScale().viewStart());
    }
};

QTEST_MAIN(TestTimelineRange)
#include "tst_timelinerange.moc"
