// Several traces on one timeline (issues 12 and 13): one group per trace in the given
// order, one time axis with per-trace offsets, selection/history/flows per trace, and
// cross-trace links between the ranks of a DDP run (fixtures ddp_rank0/1).
#include "fixture.h"
#include "widgets/timelinewidget.h"

#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTest>

using namespace ks;

namespace {

// The slices named `name` (in slice order).
std::vector<SliceId> slicesNamed(const Trace& trace, std::string_view prefix)
{
    std::vector<SliceId> found;
    for (SliceId s = 0; s < trace.slices().size(); ++s) {
        if (trace.str(trace.slices().name[s]).starts_with(prefix))
            found.push_back(s);
    }
    std::sort(found.begin(), found.end(),
              [&](SliceId a, SliceId b) { return trace.slices().start[a] < trace.slices().start[b]; });
    return found;
}

} // namespace

class TestMultiTimeline : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const Trace> m_rank0;
    std::shared_ptr<const Trace> m_rank1;

    std::unique_ptr<TimelineWidget> makeWidget(TimeNs offset1)
    {
        auto w = std::make_unique<TimelineWidget>();
        w->resize(1600, 1000);
        w->show();
        [[maybe_unused]] const bool exposed = QTest::qWaitForWindowExposed(w.get());
        w->setTraces({{m_rank0, 0, QStringLiteral("Rank 0 · ddp_rank0"), {}},
                      {m_rank1, offset1, QStringLiteral("Rank 1 · ddp_rank1"), {}}});
        return w;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_rank0 = test::loadFixture("ddp_rank0");
        m_rank1 = test::loadFixture("ddp_rank1");
    }

    void groupsStackInOrderOnOneAxis()
    {
        const TimeNs offset1 = 12345;
        auto w = makeWidget(offset1);
        QCOMPARE(w->traceCount(), 2u);
        QCOMPARE(w->trace(), m_rank0);
        const StackedTraceLayout& stack = w->stackedLayout();
        QCOMPARE(stack.headerTop(0), 0);
        QCOMPARE(stack.bodyTop(0), StackedTraceLayout::kHeaderHeight);
        QCOMPARE(stack.headerTop(1), stack.bodyTop(0) + w->trackLayout(0).totalHeight());
        QCOMPARE(stack.totalHeight(),
                 2 * StackedTraceLayout::kHeaderHeight + w->trackLayout(0).totalHeight()
                     + w->trackLayout(1).totalHeight());
        // One axis: the same axis time is the same x for both, whatever the offset.
        const TimeNs t = m_rank1->startTime() + 1'000'000;
        QCOMPARE(w->viewportXOf(1, t), w->viewportXOf(0, t + offset1));
        // Fit all covers both traces on the shared axis.
        const TimeNs axisStart = std::min(m_rank0->startTime(), m_rank1->startTime() + offset1);
        QCOMPARE(w->timeScale().viewStart(), axisStart);

        // Collapsing a trace hides its whole group; its header stays.
        w->setTraceCollapsed(0, true);
        QCOMPARE(w->stackedLayout().bodyHeight(0), 0);
        QCOMPARE(w->stackedLayout().headerTop(1), StackedTraceLayout::kHeaderHeight);
        // Clicking the header expands it again.
        QTest::mouseClick(w->viewport(), Qt::LeftButton, {},
                          QPoint(50, TimelineRenderer::kRulerHeight + StackedTraceLayout::kHeaderHeight / 2));
        QVERIFY(!w->isTraceCollapsed(0));
    }

    void clickSelectsInTheRightTraceAndHistoryCrossesTraces()
    {
        auto w = makeWidget(0);
        QSignalSpy current(w.get(), &TimelineWidget::currentTraceChanged);
        const auto kernels0 = slicesNamed(*m_rank0, "ncclDevKernel_AllReduce");
        const auto kernels1 = slicesNamed(*m_rank1, "ncclDevKernel_AllReduce");
        QCOMPARE(kernels0.size(), std::size_t(6));
        QCOMPARE(kernels1.size(), std::size_t(6));

        // Reveal rank 1's first collective kernel, then click it with the mouse.
        w->revealTraceSlice({1, kernels1[0]});
        QCOMPARE(w->selection(), (TraceSlice{1, kernels1[0]}));
        QCOMPARE(w->currentTrace(), 1u);
        QCOMPARE(current.count(), 1);
        w->clearSelection();
        const SliceTable& s1 = m_rank1->slices();
        const int x = int((w->viewportXOf(1, s1.start[kernels1[0]]) + w->viewportXOf(1, s1.end(kernels1[0]))) / 2);
        const int y = w->viewportYOfRow(1, s1.row[kernels1[0]]);
        QVERIFY(y > TimelineRenderer::kRulerHeight);
        QTest::mouseClick(w->viewport(), Qt::LeftButton, {}, QPoint(x, y));
        QCOMPARE(w->selection(), (TraceSlice{1, kernels1[0]}));

        // Back/Forward walk across traces.
        w->revealTraceSlice({0, kernels0[2]});
        QCOMPARE(w->currentTrace(), 0u);
        w->goBack();
        QCOMPARE(w->selection(), (TraceSlice{1, kernels1[0]}));
        w->goForward();
        QCOMPARE(w->selection(), (TraceSlice{0, kernels0[2]}));

        // revealSlice(SliceId) acts on the current trace.
        w->revealSlice(kernels0[3]);
        QCOMPARE(w->selection(), (TraceSlice{0, kernels0[3]}));
    }

    void crossLinkIsDrawnOnSelectionAndFollowed()
    {
        auto w = makeWidget(0);
        const auto kernels0 = slicesNamed(*m_rank0, "ncclDevKernel_AllReduce");
        const auto kernels1 = slicesNamed(*m_rank1, "ncclDevKernel_AllReduce");
        std::vector<CrossTraceLink> links;
        for (std::size_t k = 0; k < kernels0.size(); ++k)
            links.push_back({{0, kernels0[k]}, {1, kernels1[k]}});
        w->setCrossLinks(links);

        QImage image(w->viewport()->size(), QImage::Format_RGB32);
        {
            QPainter painter(&image);
            w->renderTo(painter);
        }
        QCOMPARE(w->crossLinksDrawn(), std::size_t(0)); // nothing selected, toggle off

        w->revealTraceSlice({0, kernels0[4]});
        {
            QPainter painter(&image);
            w->renderTo(painter);
        }
        QCOMPARE(w->crossLinksDrawn(), std::size_t(1));
        // The kernel has no outgoing flow of its own: `]` follows the cross-rank link.
        w->followOutgoingFlow();
        QCOMPARE(w->selection(), (TraceSlice{1, kernels1[4]}));
        w->followIncomingFlow(); // a kernel's incoming flow is its launch, in its own trace
        QCOMPARE(w->selection().trace, 1u);
        QVERIFY(w->selection().slice != kernels1[4]);

        w->setShowAllCrossLinks(true);
        w->fitAll();
        {
            QPainter painter(&image);
            w->renderTo(painter);
        }
        QCOMPARE(w->crossLinksDrawn(), links.size());
    }

    void highlightsArePerTrace()
    {
        auto w = makeWidget(0);
        std::vector<bool> names(m_rank1->strings().size(), false);
        w->setHighlightedNames(1, names);
        QCOMPARE(w->highlightedNames(1).size(), names.size());
        QVERIFY(w->highlightedNames(0).empty());
        w->clearHighlights();
        QVERIFY(w->highlightedNames(1).empty());
    }
};

QTEST_MAIN(TestMultiTimeline)
#include "tst_multitimeline.moc"
