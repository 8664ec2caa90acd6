// The timeline's tracks the user's way (issue 19 items 2, 7, 13): GPU metric tracks inside
// each GPU's group with a hover readout of the analysis' bucket value, each counter and
// metric track collapsible on its own, the memory counter readout with its maximum, [memory]
// instants selected by a click into Details, and pinned tracks that stay pinned.
#include "core/gpu/gpureport.h"
#include "fixture.h"
#include "fixturejson.h"
#include "timelineimage.h"
#include "widgets/detailspanel.h"
#include "widgets/timelinewidget.h"
#include "windowtesting.h"

#include <QScrollBar>
#include <QSignalSpy>
#include <QTreeWidget>

#include <QImage>
#include <QLocale>
#include <QTest>

#include <algorithm>
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

    // The fixture as a live recording had it at `fraction` of its time: metadata and the
    // events that ended by then.
    static std::shared_ptr<const Trace> snapshotUntil(double fraction)
    {
        nlohmann::json doc = kstest::readGz(kstest::fixture("train_baseline.pt.trace.json.gz"));
        auto& events = doc["traceEvents"];
        double first = 0, last = 0;
        bool any = false;
        for (const auto& e : events) {
            if (!e.contains("ts") || e.value("ph", "") == "M")
                continue;
            const double ts = e["ts"].get<double>();
            first = any ? std::min(first, ts) : ts;
            last = any ? std::max(last, ts) : ts;
            any = true;
        }
        const double cut = first + fraction * (last - first);
        nlohmann::json kept = nlohmann::json::array();
        for (auto& e : events) {
            if (e.value("ph", "") == "M" || !e.contains("ts") || e["ts"].get<double>() + e.value("dur", 0.0) <= cut)
                kept.push_back(std::move(e));
        }
        events = std::move(kept);
        LoadResult result = loadTraceFromMemory(doc.dump(), "snapshot");
        if (!result.ok())
            qFatal("cannot load the snapshot");
        return result.trace;
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
            const QString bucket =
                QStringLiteral("%1 – %2").arg(QString::fromStdString(formatDuration(b[i] - m_trace->startTime())),
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

    // A live recording shows a newer snapshot every 100 ms and its GPU report comes later:
    // until then the metric tracks keep the previous report's plots, so neither they nor
    // the scroll bar (and with it the time area's width) come and go with every snapshot.
    // An unrelated trace inherits nothing.
    void newerSnapshotKeepsGpuMetricTracksUntilItsReport()
    {
        auto w = makeWidget();
        w->setGpuReport(gpu::makeGpuReport(m_trace));
        const int height = w->trackLayout().totalHeight();
        const auto metricTracks = [&w] {
            return int(std::count_if(w->trackLayout().items().begin(), w->trackLayout().items().end(),
                                     [](const LayoutItem& item) { return item.kind == LayoutItem::Kind::Metric; }));
        };
        QCOMPARE(metricTracks(), 3);

        const auto snapshot = test::loadFixture("train_baseline"); // equal content, another trace
        w->setNewerSnapshot(snapshot);
        QCOMPARE(w->trace(), snapshot);
        QCOMPARE(metricTracks(), 3);
        QCOMPARE(w->trackLayout().totalHeight(), height);
        const auto next = test::loadFixture("train_baseline"); // a second one before any report
        w->setNewerSnapshot(next);
        QCOMPARE(metricTracks(), 3);
        w->setGpuReport(gpu::makeGpuReport(next));
        QCOMPARE(metricTracks(), 3);

        w->setTrace(snapshot);
        QCOMPARE(metricTracks(), 0);
        QCOMPARE(w->trackLayout().totalHeight(), height - 3 * w->trackLayout().metrics().metricHeight);
        w->setNewerSnapshot(test::loadFixture("train_baseline")); // nor is another trace's report
        QCOMPARE(metricTracks(), 0);
    }

    // Each live snapshot keeps the user's view of the one before: scroll, a collapsed group, an
    // unfolded Python lane, the selected range and the selected kernel, found again although its
    // id changed (the earlier snapshot had fewer events). A snapshot that lacks it selects
    // nothing; another trace inherits nothing.
    void newerSnapshotKeepsTheUsersView()
    {
        auto w = makeWidget();
        w->resize(1600, 400);
        QCoreApplication::processEvents();
        const auto early = snapshotUntil(0.25);
        const auto half = snapshotUntil(0.5);
        w->setTrace(half);

        // The last kernel of the half snapshot; in the full trace by its correlation id.
        SliceId kernel = kNoSlice;
        for (SliceId s = 0; s < half->slices().size(); ++s) {
            if (half->classOf(s) == SliceClass::Kernel
                && (kernel == kNoSlice || half->slices().start[s] > half->slices().start[kernel]))
                kernel = s;
        }
        QVERIFY(kernel != kNoSlice);
        const SliceId kernelLater = test::findByCorrelation(*m_trace, "kernel", half->slices().correlation[kernel]);
        QVERIFY(kernelLater != kNoSlice);
        QVERIFY(kernelLater != kernel); // the newer snapshot numbers its slices differently
        QVERIFY(test::findByCorrelation(*early, "kernel", half->slices().correlation[kernel]) == kNoSlice);

        const std::uint32_t gpu = half->tracks()[half->trackOf(kernel)].process;
        std::uint32_t host = kNoIndex;
        for (std::uint32_t p = 0; p < half->processes().size(); ++p) {
            if (p != gpu && !half->processes()[p].isDevice && !half->processes()[p].tracks.empty())
                host = p;
        }
        QVERIFY(host != kNoIndex);
        const std::uint32_t hostThread = half->processes()[host].tracks.front();
        const auto samePid = [](const Trace& a, std::uint32_t p, const Trace& b) {
            for (std::uint32_t q = 0; q < b.processes().size(); ++q) {
                if (b.processes()[q].pid == JsonId::fromNumber(a.processes()[p].pid.number))
                    return q;
            }
            return kNoIndex;
        };
        const std::uint32_t hostLater = samePid(*half, host, *m_trace);
        const std::uint32_t gpuLater = samePid(*half, gpu, *m_trace);
        QVERIFY(hostLater != kNoIndex && gpuLater != kNoIndex);

        // Back/Forward: the first kernel, then the last one.
        SliceId firstKernel = kNoSlice;
        for (SliceId s = 0; s < half->slices().size(); ++s) {
            if (half->classOf(s) == SliceClass::Kernel
                && (firstKernel == kNoSlice || half->slices().start[s] < half->slices().start[firstKernel]))
                firstKernel = s;
        }
        const SliceId firstKernelLater =
            test::findByCorrelation(*m_trace, "kernel", half->slices().correlation[firstKernel]);
        QVERIFY(firstKernelLater != kNoSlice && firstKernelLater != firstKernel);
        w->revealSlice(firstKernel);
        w->revealSlice(kernel);
        QVERIFY(w->canGoBack());
        QVERIFY(w->isPythonLaneFolded(hostThread)); // a GPU trace opens with them folded
        w->setPythonLaneFolded(hostThread, false, false); // this view only: not in the settings
        w->setProcessCollapsed(gpu, true); // the selection stays (Details show it)
        const int maxScroll = w->verticalScrollBar()->maximum();
        QVERIFY2(maxScroll > 2, qPrintable(QString::number(maxScroll)));
        w->verticalScrollBar()->setValue(maxScroll / 2);
        QCOMPARE(w->scrollY(), maxScroll / 2);
        const TimeNs rangeStart = half->startTime() + 1000, rangeEnd = half->endTime() - 1000;
        w->setSelectedRange(rangeStart, rangeEnd);

        QSignalSpy selections(w.get(), &TimelineWidget::selectionChanged);
        w->setNewerSnapshot(test::loadFixture("train_baseline"));
        w->setNewerSnapshot(m_trace);
        QCOMPARE(w->trace(), m_trace);
        QCOMPARE(w->scrollY(), maxScroll / 2);
        QVERIFY(w->isProcessCollapsed(gpuLater));
        QVERIFY(!w->isProcessCollapsed(hostLater));
        QVERIFY(!w->isPythonLaneFolded(m_trace->processes()[hostLater].tracks.front()));
        QVERIFY(w->hasSelectedRange());
        QCOMPARE(w->selectedRange().start, rangeStart);
        QCOMPARE(w->selectedRange().end, rangeEnd);
        QCOMPARE(w->selectedSlice(), kernelLater);
        QCOMPARE(selections.last().at(0).value<SliceId>(), kernelLater); // Details follow
        // Back/Forward survive the snapshots, renumbered.
        QVERIFY(w->canGoBack());
        QVERIFY(!w->canGoForward());
        w->goBack();
        QCOMPARE(w->selectedSlice(), firstKernelLater);
        w->goForward();
        QCOMPARE(w->selectedSlice(), kernelLater);

        w->setNewerSnapshot(early); // has no such kernel
        QCOMPARE(w->selectedSlice(), kNoSlice);
        QVERIFY(w->hasSelectedRange());

        w->setTrace(half);
        QCOMPARE(w->scrollY(), 0);
        QVERIFY(!w->hasSelectedRange());
        QVERIFY(!w->isProcessCollapsed(gpu));
        QVERIFY(w->isPythonLaneFolded(hostThread));
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

    // Item 2: a click on a metric or counter track's label collapses that track alone to a
    // thin plot (its group and its siblings stay as they were), it still reads out on hover,
    // a second click expands it, and the next trace of the kind opens it collapsed.
    void countersAndMetricTracksCollapseOnTheirOwn()
    {
        const auto report = gpu::makeGpuReport(m_trace);
        const auto findItem = [](const TimelineWidget& w, LayoutItem::Kind kind, bool derived) -> const LayoutItem* {
            for (const LayoutItem& item : w.trackLayout().items()) {
                if (item.kind == kind
                    && (kind != LayoutItem::Kind::Counter || w.trace()->counters()[item.index].derived == derived))
                    return &item;
            }
            return nullptr;
        };
        {
            auto w = makeWidget();
            w->setGpuReport(report);
            const LayoutMetrics metrics = w->trackLayout().metrics();
            const LayoutItem* utilization = findItem(*w, LayoutItem::Kind::Metric, false);
            QVERIFY(utilization);
            QCOMPARE(utilization->index, 0u);
            const std::uint32_t gpu = utilization->group;
            const int height = w->trackLayout().totalHeight();
            QTest::mouseClick(w->viewport(), Qt::LeftButton, {}, QPoint(60, viewportY(*w, *utilization)));
            QVERIFY(w->isMetricTrackCollapsed(gpu, 0));
            QVERIFY(!w->isMetricTrackCollapsed(gpu, 1));
            QVERIFY(!w->isProcessCollapsed(gpu));
            QCOMPARE(w->trackLayout().totalHeight(), height - metrics.metricHeight + metrics.collapsedPlotHeight);
            utilization = findItem(*w, LayoutItem::Kind::Metric, false);
            QCOMPARE(utilization->height, metrics.collapsedPlotHeight);
            QVERIFY(utilization->collapsed);
            const QString readout = w->toolTipTextAt(
                QPoint(TimelineRenderer::kLabelWidth + w->timeAreaWidth() / 2, viewportY(*w, *utilization)));
            QVERIFY2(readout.contains(QStringLiteral("GPU Utilization")) && readout.contains(QStringLiteral(" %")),
                     qPrintable(readout));
            QCOMPARE(w->toolTipTextAt(QPoint(60, viewportY(*w, *utilization))), QStringLiteral("Click to expand"));

            // The memory counter: collapsed on its own, its bars drawn inside the thin track.
            const LayoutItem* memory = findItem(*w, LayoutItem::Kind::Counter, true);
            QVERIFY(memory);
            const std::uint32_t counter = memory->index;
            QTest::mouseClick(w->viewport(), Qt::LeftButton, {}, QPoint(60, viewportY(*w, *memory)));
            QVERIFY(w->isCounterTrackCollapsed(counter));
            memory = findItem(*w, LayoutItem::Kind::Counter, true);
            QCOMPARE(memory->height, metrics.collapsedPlotHeight);
            const QImage image = kstest::renderedTimeline(*w);
            const int bottom = memory->y - w->scrollY() + TimelineRenderer::kRulerHeight + memory->height - 3;
            int bars = 0;
            for (int x = TimelineRenderer::kLabelWidth; x < image.width(); ++x)
                bars += QColor(image.pixel(x, bottom)) == QColor(120, 160, 200);
            QVERIFY2(bars > w->timeAreaWidth() / 4, qPrintable(QString::number(bars)));
            QTest::mouseClick(w->viewport(), Qt::LeftButton, {}, QPoint(60, viewportY(*w, *utilization)));
            QVERIFY(!w->isMetricTrackCollapsed(gpu, 0));
        }
        auto again = makeWidget(); // the next trace of the kind
        QVERIFY(again->isCounterTrackCollapsed(findItem(*again, LayoutItem::Kind::Counter, true)->index));
        again->resetTrackLayout();
        QVERIFY(!again->isCounterTrackCollapsed(findItem(*again, LayoutItem::Kind::Counter, true)->index));
    }

    // Item 13: a click on a [memory] tick selects that instant, marks it on the timeline and
    // shows its bytes, totals and device in Details; a click elsewhere clears it.
    void clickingAMemoryInstantShowsItInDetails()
    {
        // A GPU sample whose neighbours on its thread are at least 1 µs away, from the file.
        const auto doc = kstest::readGz(kstest::fixture("train_baseline.pt.trace.json.gz"));
        std::vector<const nlohmann::json*> samples;
        for (const auto& e : doc["traceEvents"]) {
            if (e.value("name", "") == "[memory]")
                samples.push_back(&e);
        }
        const auto ts = [](const nlohmann::json* e) { return (*e)["ts"].get<double>(); };
        const nlohmann::json* sample = nullptr;
        for (const nlohmann::json* e : samples) {
            const bool alone = std::none_of(samples.begin(), samples.end(), [&](const nlohmann::json* o) {
                return o != e && (*o)["tid"] == (*e)["tid"] && std::abs(ts(o) - ts(e)) < 1.0;
            });
            if ((*e)["args"].value("Device Type", 0) == 1 && alone && !sample)
                sample = e;
        }
        QVERIFY(sample);
        const TimeNs time = TimeNs(std::llround(ts(sample) * 1000));
        std::uint32_t instant = kNoIndex;
        const InstantTable& instants = m_trace->instants();
        for (std::uint32_t i = 0; i < instants.size(); ++i) {
            if (m_trace->str(instants.name[i]) == "[memory]" && std::abs(instants.time[i] - time) <= 1)
                instant = i;
        }
        QVERIFY(instant != kNoIndex);

        auto w = makeWidget();
        DetailsPanel details;
        details.setTrace(m_trace);
        connect(w.get(), &TimelineWidget::selectionChanged, &details, &DetailsPanel::showSlice);
        connect(w.get(), &TimelineWidget::instantSelected, &details, &DetailsPanel::showInstant);
        QSignalSpy spy(w.get(), &TimelineWidget::instantSelected);
        w->setVisibleRange(time - 2000, time + 2000);
        const std::uint32_t track = instants.track[instant];
        const int strip = w->trackLayout().instantStripTop(track);
        QVERIFY(strip >= 0);
        w->verticalScrollBar()->setValue(strip - 200);
        const int y =
            strip - w->scrollY() + TimelineRenderer::kRulerHeight + w->trackLayout().metrics().instantStrip / 2;
        QVERIFY(y > TimelineRenderer::kRulerHeight && y < w->viewport()->height());
        const int x = int(w->viewportXOf(time)) + 2; // a near miss still hits
        QTest::mouseClick(w->viewport(), Qt::LeftButton, {}, QPoint(x, y));
        QCOMPARE(w->selectedInstant(), instant);
        QCOMPARE(w->selectedSlice(), kNoSlice);
        QCOMPARE(spy.count(), 1);
        QVERIFY2(w->toolTipTextAt(QPoint(x, y)).contains(QStringLiteral("[memory]")),
                 qPrintable(w->toolTipTextAt(QPoint(x, y))));

        const auto& args = (*sample)["args"];
        const auto bytes = [](const nlohmann::json& value) {
            return QLocale().toString(value.get<qlonglong>()) + QStringLiteral(" bytes)");
        };
        const QString field = args["Bytes"].get<double>() < 0 ? QStringLiteral("Freed") : QStringLiteral("Allocated");
        QVERIFY2(details.fieldValue(field).endsWith(bytes(args["Bytes"])), qPrintable(details.fieldValue(field)));
        QVERIFY(details.fieldValue(QStringLiteral("Total allocated")).endsWith(bytes(args["Total Allocated"])));
        QVERIFY(details.fieldValue(QStringLiteral("Total reserved")).endsWith(bytes(args["Total Reserved"])));
        QCOMPARE(details.fieldValue(QStringLiteral("Device")),
                 QStringLiteral("GPU %1").arg(args["Device Id"].get<int>()));

        // Drawn: the highlighted marker over the tick.
        const QImage image = kstest::renderedTimeline(*w);
        QCOMPARE(QColor(image.pixel(int(std::floor(w->viewportXOf(time))), y)), QColor(255, 170, 0));

        // A click on empty time area clears it, and Details with it.
        QTest::mouseClick(w->viewport(), Qt::LeftButton, {}, QPoint(x, w->viewport()->height() - 5));
        QCOMPARE(w->selectedInstant(), kNoIndex);
        QCOMPARE(details.tree()->topLevelItemCount(), 0);
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
        const auto render = [&] { return kstest::renderedTimeline(*w); };
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
            QCOMPARE(after,
                     TimelineRenderer::kRulerHeight + w->trackLayout().metrics().processHeader
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
