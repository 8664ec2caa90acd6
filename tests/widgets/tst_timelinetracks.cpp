// The timeline's tracks the user's way (issue 19 items 2, 7): GPU metric tracks inside
// each GPU's group with a hover readout of the analysis' bucket value, the memory counter
// readout with its maximum, and pinned tracks that stay pinned for the next trace.
#include "core/gpu/gpureport.h"
#include "fixture.h"
#include "widgets/timelinewidget.h"
#include "windowtesting.h"

#include <QImage>
#include <QLocale>
#include <QPainter>
#include <QTest>

#include <cmath>

using namespace ks;

class TestTimelineTracks : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const Trace> m_trace;

    std::unique_ptr<TimelineWidget> makeWidget()
    {
        auto widget = std::make_unique<TimelineWidget>();
        widget->resize(1600, 1200);
        widget->show();
        [[maybe_unused]] const bool exposed = QTest::qWaitForWindowExposed(widget.get());
        widget->setTrace(m_trace);
        return widget;
    }

    // The viewport y of the middle of a layout item, or -1.
    static int viewportY(const TimelineWidget& w, const LayoutItem& item)
    {
        return item.y - w.scrollY() + TimelineRenderer::kRulerHeight + item.height / 2;
    }

private Q_SLOTS:
    void initTestCase()
    {
        kstest::useTestSettings();
        m_trace = test::loadFixture("train_baseline");
    }

    void gpuMetricTracksSitInTheirGroupAndReadTheBucket()
    {
        auto w = makeWidget();
        const auto report = gpu::makeGpuReport(m_trace);
        QCOMPARE(report->analysis.gpus.size(), std::size_t(1)); // kernels run on GPU 0 only
        w->setGpuReport(report);
        const TrackLayout& layout = w->trackLayout();
        // Three metric tracks, right under the header of the GPU that has kernels.
        std::vector<const LayoutItem*> metrics;
        for (std::size_t i = 0; i < layout.items().size(); ++i) {
            const LayoutItem& item = layout.items()[i];
            if (item.kind != LayoutItem::Kind::Metric)
                continue;
            const Process& process = m_trace->processes()[item.group];
            QVERIFY(process.isDevice);
            QCOMPARE(process.deviceIndex, report->analysis.gpus[0].device());
            QCOMPARE(layout.items()[i - 1 - item.index].kind, LayoutItem::Kind::Process);
            metrics.push_back(&item);
        }
        QCOMPARE(metrics.size(), std::size_t(3));

        // Hover over the GPU Utilization track: the text gives the bucket under the cursor
        // and its value, as the analysis computes it over that bucket.
        const gpu::GpuMetricIndex& index = report->analysis.gpus[0];
        const TimeScale scale = w->timeScale();
        const int width = w->timeAreaWidth();
        const gpu::MetricSeries series = index.series(scale.viewStart(), scale.viewEnd(width), std::size_t(width / 3));
        const int y = viewportY(*w, *metrics[0]);
        int checked = 0;
        for (int x = 10; x < width - 10 && checked < 3; x += 37) {
            const TimeNs t = w->timeAtViewportX(TimelineRenderer::kLabelWidth + x);
            const auto& b = series.bucketStart;
            const std::size_t i = std::size_t(std::upper_bound(b.begin(), b.end(), t) - b.begin()) - 1;
            const double util = 100.0 * index.metrics(b[i], b[i + 1]).utilization;
            if (util <= 1.0 || util >= 99.0)
                continue; // a partly busy bucket tells more
            const QString text = w->toolTipTextAt(QPoint(TimelineRenderer::kLabelWidth + x, y));
            QVERIFY2(text.contains(QStringLiteral("GPU Utilization")), qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral("%1 %").arg(util, 0, 'f', 2)), qPrintable(text));
            const QString bucket = QStringLiteral("%1 – %2").arg(QString::fromStdString(formatDuration(b[i] - m_trace->startTime())),
                                                                  QString::fromStdString(formatDuration(b[i + 1] - m_trace->startTime())));
            QVERIFY2(text.contains(bucket), qPrintable(text + QStringLiteral(" / ") + bucket));
            ++checked;
        }
        QCOMPARE(checked, 3);

        // The option to keep the old block removes the tracks.
        const int height = layout.totalHeight();
        w->setGpuMetricTracksShown(false);
        QCOMPARE(w->trackLayout().totalHeight(), height - 3 * layout.metrics().metricHeight);
    }

    void memoryCounterReadsBytesAndItsMaximum()
    {
        auto w = makeWidget();
        const TrackLayout& layout = w->trackLayout();
        const LayoutItem* counter = nullptr;
        for (const LayoutItem& item : layout.items()) {
            if (item.kind == LayoutItem::Kind::Counter && m_trace->counters()[item.index].derived && !counter)
                counter = &item;
        }
        QVERIFY(counter);
        const CounterSeries& series = m_trace->counters()[counter->index];
        const double peak = *std::max_element(series.value.begin(), series.value.end());
        const int x = TimelineRenderer::kLabelWidth + w->timeAreaWidth() / 2;
        const TimeNs t = w->timeAtViewportX(x);
        double value = 0;
        for (std::size_t i = 0; i < series.time.size() && series.time[i] <= t; ++i)
            value = series.value[i];
        const QString text = w->toolTipTextAt(QPoint(x, viewportY(*w, *counter)));
        QVERIFY2(text.contains(QLocale().toString(qint64(value)) + QStringLiteral(" B")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("max ") + QLocale().formattedDataSize(qint64(peak))), qPrintable(text));
    }

    // Issue 19 item 14: in half of a 1280×720 window the first screen shows a CPU thread,
    // the GPU stream and its metric tracks (Python lanes start folded on GPU traces).
    void firstScreenShowsCpuAndGpuStreams()
    {
        auto w = std::make_unique<TimelineWidget>();
        w->resize(1280 - 400, 360);
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        w->setTrace(m_trace);
        w->setGpuReport(gpu::makeGpuReport(m_trace));
        const auto onScreen = [&](std::uint32_t row) {
            const int y = w->viewportYOfRow(row);
            return y >= TimelineRenderer::kRulerHeight && y < w->viewport()->height();
        };
        bool cpu = false, gpu = false;
        for (const Track& track : m_trace->tracks()) {
            if (track.rowEnd == track.rowBegin || !onScreen(track.rowBegin))
                continue;
            cpu |= track.kind == TrackKind::CpuThread;
            gpu |= track.kind == TrackKind::GpuStream;
        }
        QVERIFY(cpu);
        QVERIFY(gpu);
        // Folded, not lost: revealing a deep Python frame unfolds its lane.
        SliceId deep = kNoSlice;
        for (SliceId s = 0; s < m_trace->slices().size() && deep == kNoSlice; ++s) {
            const Row& row = m_trace->rows()[m_trace->slices().row[s]];
            if (row.depth > 2 && m_trace->tracks()[row.track].lanes[row.lane].kind == LaneKind::Python)
                deep = s;
        }
        QVERIFY(deep != kNoSlice);
        QCOMPARE(w->viewportYOfRow(m_trace->slices().row[deep]), -1);
        w->revealSlice(deep);
        QVERIFY(w->viewportYOfRow(m_trace->slices().row[deep]) >= TimelineRenderer::kRulerHeight);
        QVERIFY(!w->isPythonLaneFolded(m_trace->trackOf(deep)));
        w->resetTrackLayout();
    }

    // Issue 19 item 15: a dark system palette darkens the timeline's backgrounds and labels.
    void followsADarkPalette()
    {
        auto w = makeWidget();
        const auto render = [&] {
            QImage image(w->viewport()->size(), QImage::Format_RGB32);
            QPainter painter(&image);
            w->renderTo(painter);
            return image;
        };
        // Bottom right: below the last track, plain background.
        QVERIFY(w->trackLayout().totalHeight() + TimelineRenderer::kRulerHeight < w->viewport()->height() - 5);
        const QPoint empty(w->viewport()->width() - 3, w->viewport()->height() - 3);
        const QImage light = render();
        QCOMPARE(QColor(light.pixel(empty)).lightness() > 200, true);
        QPalette dark = w->palette();
        dark.setColor(QPalette::Window, QColor(40, 42, 46));
        dark.setColor(QPalette::Base, QColor(28, 30, 33));
        dark.setColor(QPalette::Text, QColor(230, 230, 230));
        dark.setColor(QPalette::WindowText, QColor(235, 235, 235));
        w->setPalette(dark);
        const QImage image = render();
        QCOMPARE(image.pixel(empty), QColor(28, 30, 33).rgb());
        QCOMPARE(QColor(image.pixel(5, TimelineRenderer::kRulerHeight + 200)).lightness() < 100, true); // label column
    }

    // Issue 19 item 7: pin moves a track to the top, and the next trace of the kind keeps it.
    void pinnedTrackGoesToTheTopAndIsRemembered()
    {
        std::uint32_t stream = kNoIndex;
        for (std::uint32_t t = 0; t < m_trace->tracks().size(); ++t) {
            if (m_trace->tracks()[t].kind == TrackKind::GpuStream)
                stream = t;
        }
        QVERIFY(stream != kNoIndex);
        {
            auto w = makeWidget();
            QVERIFY(w->gpuFirst()); // a GPU trace's default; off, the stream is under the CPU threads
            w->setGpuFirst(false);
            const int before = w->viewportYOfRow(m_trace->tracks()[stream].rowBegin);
            w->setTrackPinned(stream, true);
            QVERIFY(w->isTrackPinned(stream));
            const LayoutItem& first = w->trackLayout().items()[0];
            QCOMPARE(first.index, kPinnedGroup);
            QCOMPARE(w->trackLayout().items()[1].index, stream);
            const int after = w->viewportYOfRow(m_trace->tracks()[stream].rowBegin);
            QVERIFY(after < before);
            QCOMPARE(after, TimelineRenderer::kRulerHeight + w->trackLayout().metrics().processHeader
                         + w->trackLayout().metrics().rowHeight / 2);
        }
        auto again = makeWidget(); // a new window, the same trace kind
        QVERIFY(again->isTrackPinned(stream));
        QVERIFY(!again->gpuFirst());
        again->resetTrackLayout();
        QVERIFY(!again->isTrackPinned(stream));
        auto third = makeWidget();
        QVERIFY(!third->isTrackPinned(stream));
        QVERIFY(third->gpuFirst());
    }
};

QTEST_MAIN(TestTimelineTracks)
#include "tst_timelinetracks.moc"
