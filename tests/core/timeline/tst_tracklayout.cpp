#include "core/model/tracebuilder.h"
#include "core/timeline/tracklayout.h"
#include "fixture.h"

#include <QTest>

using namespace ks;

namespace {

// "P name" for process headers, "  T name" for tracks, in display order.
std::vector<std::string> describe(const Trace& trace, const TrackLayout& layout)
{
    std::vector<std::string> out;
    for (const LayoutItem& item : layout.items()) {
        if (item.kind == LayoutItem::Kind::Process && item.index == kPinnedGroup)
            out.push_back("P Pinned");
        else if (item.kind == LayoutItem::Kind::Process)
            out.push_back("P " + trace.processDisplayName(item.index));
        else if (item.kind == LayoutItem::Kind::Metric)
            out.push_back("  M " + std::to_string(item.index));
        else if (item.kind == LayoutItem::Kind::Track)
            out.push_back("  T " + trace.trackDisplayName(item.index));
        else
            out.push_back("  C " + trace.counters()[item.index].name);
    }
    return out;
}

// The process headers of describe().
std::vector<std::string> processHeaders(const Trace& trace, const TrackLayout& layout)
{
    std::vector<std::string> headers = describe(trace, layout);
    std::erase_if(headers, [](const std::string& line) { return !line.starts_with("P "); });
    return headers;
}

} // namespace

class TestTrackLayout : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Issue 19 item 7: a pinned track leaves its group for a Pinned group above all others.
    void pinMovesTrackToTheTop()
    {
        const auto trace = test::loadFixture("transformer");
        std::uint32_t stream = kNoIndex;
        for (std::uint32_t t = 0; t < trace->tracks().size(); ++t) {
            if (trace->trackDisplayName(t) == "stream 7")
                stream = t;
        }
        QVERIFY(stream != kNoIndex);
        TrackLayout layout;
        LayoutOptions options;
        options.pinnedTracks = {stream};
        layout.setOptions(options);
        layout.build(*trace, {});
        const std::vector<std::string> items = describe(*trace, layout);
        QCOMPARE(std::vector<std::string>(items.begin(), items.begin() + 4),
                 (std::vector<std::string>{"P Pinned", "  T stream 7", "P python3 (572)", "  T thread 572 (python3)"}));
        QCOMPARE(std::ranges::count(items, "  T stream 7"), 1); // not in its own group any more
        QVERIFY(std::ranges::find(items, "P GPU 0 · NVIDIA H200") != items.end());
        // Its kernels are laid out right under the Pinned header.
        const std::uint32_t row = trace->tracks()[stream].rowBegin;
        QCOMPARE(layout.rowTop(row), layout.metrics().processHeader);
        QCOMPARE(layout.rowAt(layout.rowTop(row) + 1), row);
    }

    void gpuFirstAndDraggedOrderArrangeGroups()
    {
        const auto trace = test::loadFixture("transformer");
        TrackLayout layout;
        LayoutOptions options;
        options.gpuFirst = true;
        layout.setOptions(options);
        layout.build(*trace, {});
        std::vector<std::string> headers = processHeaders(*trace, layout);
        QCOMPARE(headers, (std::vector<std::string>{"P GPU 0 · NVIDIA H200", "P python3 (572)", "P Spans"}));
        // A dragged order wins: Spans, then the rest as before.
        std::uint32_t spans = kNoIndex;
        for (std::uint32_t p = 0; p < trace->processes().size(); ++p) {
            if (trace->processDisplayName(p) == "Spans")
                spans = p;
        }
        options.groupOrder = {spans};
        layout.setOptions(options);
        layout.build(*trace, {});
        headers = processHeaders(*trace, layout);
        QCOMPARE(headers, (std::vector<std::string>{"P Spans", "P GPU 0 · NVIDIA H200", "P python3 (572)"}));
    }

    // A folded Python lane keeps its top row; deeper Python rows get no place.
    void foldedPythonLaneKeepsItsTopRow()
    {
        const auto trace = test::loadFixture("train_baseline");
        std::uint32_t thread = kNoIndex;
        int pythonRows = 0;
        for (std::uint32_t t = 0; t < trace->tracks().size() && thread == kNoIndex; ++t) {
            for (const Lane& lane : trace->tracks()[t].lanes) {
                if (lane.kind == LaneKind::Python && lane.depthCount > 3) {
                    thread = t;
                    pythonRows = lane.depthCount;
                }
            }
        }
        QVERIFY(thread != kNoIndex);
        TrackLayout layout;
        layout.build(*trace, {});
        const int before = layout.totalHeight();
        LayoutOptions options;
        options.foldedPythonLanes.assign(trace->tracks().size(), false);
        options.foldedPythonLanes[thread] = true;
        layout.setOptions(options);
        layout.build(*trace, {});
        QCOMPARE(layout.totalHeight(), before - (pythonRows - 1) * layout.metrics().rowHeight);
        int shown = 0;
        for (std::uint32_t r = trace->tracks()[thread].rowBegin; r < trace->tracks()[thread].rowEnd; ++r) {
            const Row& row = trace->rows()[r];
            if (trace->tracks()[thread].lanes[row.lane].kind != LaneKind::Python)
                continue;
            QCOMPARE(layout.rowTop(r) >= 0, row.depth == 0);
            shown += layout.rowTop(r) >= 0;
        }
        QCOMPARE(shown, 1);
    }

    void metricTracksOpenTheirGpuGroup()
    {
        const auto trace = test::loadFixture("transformer");
        TrackLayout layout;
        LayoutOptions options;
        options.metricTracks.assign(trace->processes().size(), 0);
        for (std::uint32_t p = 0; p < trace->processes().size(); ++p) {
            if (trace->processes()[p].isDevice)
                options.metricTracks[p] = 3;
        }
        layout.setOptions(options);
        layout.build(*trace, {});
        const std::vector<std::string> items = describe(*trace, layout);
        const auto gpu = std::ranges::find(items, "P GPU 0 · NVIDIA H200");
        QVERIFY(items.end() - gpu >= 5);
        QCOMPARE(std::vector<std::string>(gpu, gpu + 5),
                 (std::vector<std::string>{"P GPU 0 · NVIDIA H200", "  M 0", "  M 1", "  M 2", "  T stream 7"}));
        QCOMPARE(std::ranges::count(items, "  M 0"), 1);
    }

    void buildsTracksForFixtures_data()
    {
        QTest::addColumn<std::string>("fixture");
        QTest::addColumn<std::vector<std::string>>("expected");
        QTest::newRow("transformer") << std::string("transformer")
                                     << std::vector<std::string>{"P python3 (572)",
                                                                 "  T thread 572 (python3)",
                                                                 "  T thread 602 (pt_autograd_0)",
                                                                 "  C CPU memory allocated",
                                                                 "  C GPU 0 memory allocated",
                                                                 "  C GPU 0 memory reserved",
                                                                 "P GPU 0 · NVIDIA H200",
                                                                 "  T stream 7",
                                                                 "P Spans",
                                                                 "  T PyTorch Profiler"};
        QTest::newRow("multistream") << std::string("multistream")
                                     << std::vector<std::string>{"P python3 (572)",
                                                                 "  T thread 572 (python3)",
                                                                 "P GPU 0 · NVIDIA H200",
                                                                 "  T stream 7",
                                                                 "  T stream 46",
                                                                 "  T stream 50",
                                                                 "P Spans",
                                                                 "  T PyTorch Profiler",
                                                                 "P CUPTI overhead (pid -1)",
                                                                 "  T 0"};
        QTest::newRow("square") << std::string("square") << std::vector<std::string>{"P python3 (572)",
                                                                                     "  T thread 572 (python3)",
                                                                                     "P GPU 0 · NVIDIA H200",
                                                                                     "  T stream 7",
                                                                                     "P Spans",
                                                                                     "  T PyTorch Profiler",
                                                                                     "P CUPTI overhead (pid -1)",
                                                                                     "  T 0"};
        QTest::newRow("big") << std::string("big")
                             << std::vector<std::string>{"P python3 (572)",
                                                         "  T thread 572 (python3)",
                                                         "  T thread 602 (pt_autograd_0)",
                                                         "  C CPU memory allocated",
                                                         "  C GPU 0 memory allocated",
                                                         "  C GPU 0 memory reserved",
                                                         "P GPU 0 · NVIDIA H200",
                                                         "  T stream 7",
                                                         "P Spans",
                                                         "  T PyTorch Profiler",
                                                         "P CUPTI overhead (pid -1)",
                                                         "  T 0"};
        QTest::newRow("mlp_ops") << std::string("mlp_ops")
                                 << std::vector<std::string>{"P python3 (399)",
                                                             "  T thread 399 (python3)",
                                                             "  T thread 426 (pt_autograd_0)",
                                                             "P GPU 0 · NVIDIA H200",
                                                             "  T stream 7",
                                                             "P Spans",
                                                             "  T PyTorch Profiler",
                                                             "P CUPTI overhead (pid -1)",
                                                             "  T 0"};
    }

    void buildsTracksForFixtures()
    {
        QFETCH(std::string, fixture);
        QFETCH(std::vector<std::string>, expected);
        const auto trace = test::loadFixture(fixture.c_str());
        TrackLayout layout;
        layout.build(*trace, {});
        QCOMPARE(describe(*trace, layout), expected);
        // kineto declares 16 GPUs; only the one with events is shown.
        QVERIFY(trace->processes().size() >= layout.groups().size());
    }

    void rowsStackInsideTracks()
    {
        const auto trace = test::loadFixture("transformer");
        TrackLayout layout;
        layout.build(*trace, {});
        const LayoutMetrics& m = layout.metrics();
        int laidOut = 0;
        for (const LayoutItem& item : layout.items()) {
            if (item.kind != LayoutItem::Kind::Track)
                continue;
            const Track& track = trace->tracks()[item.index];
            const int strip = track.instantCount() > 0 ? m.instantStrip : 0;
            QCOMPARE(item.height, strip + int(track.rowEnd - track.rowBegin) * m.rowHeight + m.trackGap);
            for (std::uint32_t r = track.rowBegin; r < track.rowEnd; ++r) {
                const int top = layout.rowTop(r);
                QCOMPARE(top, item.y + strip + int(r - track.rowBegin) * m.rowHeight);
                QCOMPARE(layout.rowAt(top), r);
                QCOMPARE(layout.rowAt(top + m.rowHeight - 1), r);
                ++laidOut;
            }
        }
        QCOMPARE(laidOut, int(trace->rows().size()));
        QCOMPARE(layout.items().back().y + layout.items().back().height, layout.totalHeight());
    }

    void collapsedGroupHidesRows()
    {
        const auto trace = test::loadFixture("transformer");
        std::uint32_t cpu = kNoIndex;
        for (std::uint32_t p = 0; p < trace->processes().size(); ++p) {
            if (trace->processDisplayName(p) == "python3 (572)")
                cpu = p;
        }
        QVERIFY(cpu != kNoIndex);
        std::vector<bool> collapsed(trace->processes().size(), false);
        collapsed[cpu] = true;
        TrackLayout full, folded;
        full.build(*trace, {});
        folded.build(*trace, collapsed);
        const Track& mainThread = trace->tracks()[trace->processes()[cpu].tracks.front()];
        QCOMPARE(folded.rowTop(mainThread.rowBegin), -1);
        QVERIFY(full.rowTop(mainThread.rowBegin) >= 0);
        // Its two threads and three memory curves are hidden.
        QCOMPARE(folded.items().size(), full.items().size() - 5);
        QVERIFY(folded.items().front().collapsed);
        QVERIFY(folded.totalHeight() < full.totalHeight());
        // The header still hit-tests as the process.
        QCOMPARE(folded.itemAt(1)->index, cpu);
    }

    // Counter series are drawn as area plots inside their process group; series of a pid
    // with no other events form their own group at the end.
    void countersFollowTheirProcessTracks()
    {
        TraceBuilder builder;
        SliceEvent e;
        e.pid = JsonId::fromNumber(7);
        e.tid = JsonId::fromNumber(8);
        e.name = builder.strings().intern("step");
        e.category = builder.strings().intern("cpu_op");
        e.start = 0;
        e.duration = 100;
        builder.addSlice(e);
        builder.addCounterSample(JsonId::fromNumber(7), "memory Allocated", 10, 1.0);
        builder.addCounterSample(JsonId::fromNumber(7), "memory Allocated", 50, 3.0);
        builder.addCounterSample(JsonId::fromNumber(99), "power W", 20, 250.0);
        const Trace trace = builder.finish();
        QCOMPARE(trace.counters().size(), std::size_t(2));

        TrackLayout layout;
        layout.build(trace, {});
        std::vector<std::string> kinds;
        for (const LayoutItem& item : layout.items())
            kinds.push_back(std::to_string(int(item.kind)));
        // Process 7 (header, thread, counter), then whatever group holds pid 99's series.
        QCOMPARE(std::vector<std::string>(kinds.begin(), kinds.begin() + 3), (std::vector<std::string>{"0", "1", "2"}));
        const LayoutItem& counter = layout.items()[2];
        QCOMPARE(trace.counters()[counter.index].name, std::string("memory Allocated"));
        QCOMPARE(counter.height, layout.metrics().counterHeight);
        QCOMPARE(layout.items().back().kind, LayoutItem::Kind::Counter);
        QCOMPARE(trace.counters()[layout.items().back().index].name, std::string("power W"));
    }
};

QTEST_APPLESS_MAIN(TestTrackLayout)
#include "tst_tracklayout.moc"
