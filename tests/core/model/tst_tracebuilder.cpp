// Tiny inline traces for each ph kind and flow rule (trace-format.md §3, §6).
#include "core/loading/loader.h"
#include "core/model/appendonlyarray.h"
#include "core/model/timelimits.h"
#include "core/model/tracebuilder.h"
#include "core/stats/traceinfo.h"

#include <QtTest>

using namespace ks;

namespace {

std::shared_ptr<const Trace> load(const char* events, std::size_t chunk = 1 << 20)
{
    LoadOptions o;
    o.chunkBytes = chunk;
    auto r = loadTraceFromMemory(std::string("{\"traceEvents\":[") + events + "]}", "inline.json", nullptr, o);
    return r.trace;
}

SliceId byName(const Trace& t, std::string_view name)
{
    for (SliceId s = 0; s < t.slices().size(); ++s) {
        if (t.str(t.slices().name[s]) == name)
            return s;
    }
    return kNoSlice;
}

std::vector<std::pair<std::string, std::string>> arrows(const Trace& t)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& f : t.flows())
        out.emplace_back(t.str(t.slices().name[f.from]), t.str(t.slices().name[f.to]));
    std::sort(out.begin(), out.end());
    return out;
}

using Arrows = std::vector<std::pair<std::string, std::string>>;

} // namespace

class TestTraceBuilder : public QObject {
    Q_OBJECT
private slots:
    void nestingAndDepth()
    {
        const auto t = load(R"(
            {"ph":"X","name":"child","pid":1,"tid":1,"ts":2,"dur":3},
            {"ph":"X","name":"parent","pid":1,"tid":1,"ts":1,"dur":10},
            {"ph":"X","name":"sibling","pid":1,"tid":1,"ts":11,"dur":1},
            {"ph":"X","name":"grandchild","pid":1,"tid":1,"ts":2,"dur":1})");
        QVERIFY(t);
        QCOMPARE(t->rowOf(byName(*t, "parent")).depth, 0);
        QCOMPARE(t->rowOf(byName(*t, "sibling")).depth, 0);
        QCOMPARE(t->rowOf(byName(*t, "child")).depth, 1);
        QCOMPARE(t->rowOf(byName(*t, "grandchild")).depth, 2);
        QCOMPARE(t->selfTime(byName(*t, "parent")), TimeNs(7000));
        QCOMPARE(t->selfTime(byName(*t, "child")), TimeNs(2000));
        // Rows are time ordered and binary-searchable.
        const auto row = t->slices().row[byName(*t, "parent")];
        QCOMPARE(t->sliceAt(row, 11500), byName(*t, "sibling"));
        QCOMPARE(t->sliceAt(row, 10500), byName(*t, "parent"));
        QCOMPARE(t->sliceAt(row, 500), kNoSlice);
    }

    void partialOverlapGoesToExtraLaneNotDropped()
    {
        const auto t = load(R"(
            {"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":10},
            {"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":10},
            {"ph":"X","cat":"python_function","name":"py","pid":1,"tid":1,"ts":0,"dur":7})");
        QCOMPARE(t->slices().size(), std::size_t(3));
        const auto& track = t->tracks()[0];
        QCOMPARE(track.lanes.size(), std::size_t(3));
        QCOMPARE(track.lanes[t->rowOf(byName(*t, "a")).lane].kind, LaneKind::Main);
        QCOMPARE(track.lanes[t->rowOf(byName(*t, "b")).lane].kind, LaneKind::Overflow);
        QCOMPARE(track.lanes[t->rowOf(byName(*t, "py")).lane].kind, LaneKind::Python);
        QCOMPARE(t->diagnostics().count("overlap-moved-to-lane"), 1u);
    }

    void pathologicalNestingAndOverlapStayBounded()
    {
        // 70,000 slices nested at one start (beyond 16-bit depths) and 2,000 staggered
        // partial overlaps (one lane each, unbounded) load without crashing or dropping.
        std::string events;
        for (int i = 0; i < 70000; ++i)
            events += "{\"ph\":\"X\",\"name\":\"n\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":" + std::to_string(100000 - i)
                + "},";
        for (int i = 0; i < 2000; ++i)
            events +=
                "{\"ph\":\"X\",\"name\":\"s\",\"pid\":1,\"tid\":2,\"ts\":" + std::to_string(i) + ",\"dur\":5000},";
        events.pop_back();
        const auto t = load(events.c_str());
        QVERIFY(t);
        QCOMPARE(t->slices().size(), std::size_t(72000));
        for (const auto& track : t->tracks()) {
            QVERIFY(track.lanes.size() <= 256);
            for (const auto& lane : track.lanes)
                QVERIFY(lane.depthCount <= 1024);
        }
        QVERIFY(t->diagnostics().count("too-many-lanes") > 0);
        for (SliceId s = 0; s < t->slices().size(); ++s)
            QVERIFY(t->slices().row[s] < t->rows().size());
    }

    void beginEnd()
    {
        const auto t = load(R"(
            {"ph":"B","name":"outer","pid":1,"tid":1,"ts":1},
            {"ph":"B","name":"inner","pid":1,"tid":1,"ts":2},
            {"ph":"E","pid":1,"tid":1,"ts":3},
            {"ph":"E","name":"outer","pid":1,"tid":1,"ts":9})");
        QCOMPARE(t->slices().duration[byName(*t, "outer")], TimeNs(8000));
        QCOMPARE(t->slices().duration[byName(*t, "inner")], TimeNs(1000));
        QCOMPARE(t->rowOf(byName(*t, "inner")).depth, 1);
    }

    // Found by fuzz_collector (reproducers/collector/end-beyond-time-limit.bin), reachable
    // from JSON as well: a slice from -2^62 ns and one ending after +2^62 ns made the trace's
    // span overflow (UB in `info`). Ends are clamped to the limit like starts.
    void endsStayWithinTheTimeLimit()
    {
        const auto t = load(R"(
            {"ph":"X","name":"early","pid":1,"tid":1,"ts":-4611686018427387.903,"dur":1},
            {"ph":"X","name":"late","pid":1,"tid":1,"ts":4611686018427387,"dur":4611686018427387},
            {"ph":"C","name":"c","pid":1,"ts":4611686018427387.903,"args":{"v":1}})");
        QVERIFY(t);
        QCOMPARE(t->slices().size(), std::size_t(2));
        QCOMPARE(t->startTime(), -kMaxTimeNs);
        QCOMPARE(t->endTime(), kMaxTimeNs);
        const SliceId late = byName(*t, "late");
        QCOMPARE(t->slices().start[late], TimeNs(4611686018427387000));
        QCOMPARE(t->slices().duration[late], kMaxTimeNs - TimeNs(4611686018427387000)); // 903 ns
        QCOMPARE(traceInfoJson(*t, "x")["span_ns"].get<TimeNs>(), 2 * kMaxTimeNs);
    }

    void instantsCountersMetadata()
    {
        const auto t = load(R"(
            {"ph":"X","name":"op","pid":7,"tid":8,"ts":1,"dur":1},
            {"ph":"i","name":"thread mark","pid":7,"tid":8,"ts":1.5,"s":"t"},
            {"ph":"i","name":"global mark","pid":"Traces","tid":"x","ts":2,"s":"g"},
            {"ph":"C","name":"mem","pid":7,"ts":1,"args":{"used":10,"free":"5"}},
            {"ph":"C","name":"mem","pid":7,"ts":0.5,"args":{"used":4}},
            {"ph":"C","name":"hw","pid":7,"ts":1,"args":{"":3}},
            {"ph":"M","name":"process_name","pid":7,"args":{"name":"old"}},
            {"ph":"M","name":"process_name","pid":7,"args":{"name":"trainer"}},
            {"ph":"M","name":"thread_name","pid":7,"tid":8,"args":{"name":"worker"}},
            {"ph":"M","name":"process_labels","pid":7,"args":{"labels":"CPU"}})");
        QCOMPARE(t->processDisplayName(0), std::string("trainer (7)")); // last M wins
        QCOMPARE(t->processes()[0].labels, std::string("CPU"));
        QCOMPARE(t->trackDisplayName(0), std::string("worker"));
        QCOMPARE(t->instants().size(), std::size_t(2));
        QCOMPARE(t->tracks()[0].instantCount(), 1u);
        std::map<std::string, std::vector<double>> series;
        for (const auto& c : t->counters())
            series[c.name] = c.value;
        QCOMPARE(series["mem used"], (std::vector<double>{4, 10})); // sorted by time
        QCOMPARE(series["mem free"], (std::vector<double>{5}));
        QCOMPARE(series["hw"], (std::vector<double>{3}));
        QCOMPARE(t->traceEventCount(), 10u);
    }

    void stringAndNumericIdsAreDifferentTracks()
    {
        const auto t = load(R"(
            {"ph":"X","name":"a","pid":0,"tid":0,"ts":1,"dur":1},
            {"ph":"X","name":"b","pid":"0","tid":0,"ts":1,"dur":1},
            {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1})");
        QCOMPARE(t->processes().size(), std::size_t(3)); // host pid 0, host pid "0", GPU 0
        QVERIFY(t->processes()[1].isDevice);
        QCOMPARE(t->processDisplayName(1), std::string("GPU 0"));
    }

    void flowV1BindingRules()
    {
        // s binds to the enclosing slice, f with bp:e to the enclosing one, plain f to
        // the next slice starting at or after ts; the ids are keyed by (cat, name, id).
        const auto t = load(R"(
            {"ph":"X","name":"launch","pid":1,"tid":1,"ts":1,"dur":4},
            {"ph":"s","cat":"c","name":"n","id":5,"pid":1,"tid":1,"ts":2},
            {"ph":"X","name":"kernel","pid":1,"tid":2,"ts":10,"dur":2},
            {"ph":"f","cat":"c","name":"n","id":5,"pid":1,"tid":2,"ts":11,"bp":"e"},
            {"ph":"s","cat":"c","name":"n","id":"0x6","pid":1,"tid":1,"ts":3},
            {"ph":"X","name":"later","pid":1,"tid":2,"ts":20,"dur":1},
            {"ph":"f","cat":"c","name":"n","id":6,"pid":1,"tid":2,"ts":15},
            {"ph":"s","cat":"other","name":"n","id":5,"pid":1,"tid":1,"ts":2})");
        QCOMPARE(arrows(*t), (Arrows{{"launch", "kernel"}, {"launch", "later"}}));
        const auto kernel = byName(*t, "kernel");
        QCOMPARE(t->incomingFlows(kernel).size(), std::size_t(1));
        QCOMPARE(t->flows()[t->incomingFlows(kernel)[0]].from, byName(*t, "launch"));
        QCOMPARE(t->outgoingFlows(byName(*t, "launch")).size(), std::size_t(2));
    }

    void oneStartManyEndsAndOrphans()
    {
        // A CUDA graph launch: one s, several f (kernel events before the launch in file
        // order, as kineto writes them); an orphan f and an orphan s are counted, not drawn.
        const auto t = load(R"(
            {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":1},
            {"ph":"f","cat":"ac2g","name":"ac2g","id":9,"pid":0,"tid":7,"ts":10,"bp":"e"},
            {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":12,"dur":1},
            {"ph":"f","cat":"ac2g","name":"ac2g","id":9,"pid":0,"tid":7,"ts":12,"bp":"e"},
            {"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":2,"dur":3},
            {"ph":"s","cat":"ac2g","name":"ac2g","id":9,"pid":1,"tid":1,"ts":2},
            {"ph":"X","cat":"cuda_runtime","name":"cudaMalloc","pid":1,"tid":1,"ts":6,"dur":1},
            {"ph":"f","cat":"ac2g","name":"ac2g","id":10,"pid":1,"tid":1,"ts":6,"bp":"e"},
            {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":8,"dur":1},
            {"ph":"s","cat":"ac2g","name":"ac2g","id":11,"pid":1,"tid":1,"ts":8})");
        QCOMPARE(arrows(*t), (Arrows{{"cudaGraphLaunch", "k1"}, {"cudaGraphLaunch", "k2"}}));
        const auto& s = t->flowStats().front();
        QCOMPARE(s.paired, 2u);
        QCOMPARE(s.unpairedEnds, 1u);
        QCOMPARE(s.unpairedStarts, 1u);
        // The halves are kept on their slices (shown and written back), not only counted.
        QCOMPARE(t->unpairedFlowHalves().size(), std::size_t(2));
        const auto orphanEnd = t->unpairedFlowHalves(byName(*t, "cudaMalloc"));
        QCOMPARE(orphanEnd.size(), std::size_t(1));
        QCOMPARE(orphanEnd[0].id, 10u);
        QVERIFY(!orphanEnd[0].isStart);
        const auto syncStart = t->unpairedFlowHalves(byName(*t, "cudaDeviceSynchronize"));
        QCOMPARE(syncStart.size(), std::size_t(1));
        QVERIFY(syncStart[0].isStart);
    }

    // The halves are paired in (category, name, id, time, phase, file) order (a radix sort on
    // the ids): ids equal in their low 16 or 32 bits stay apart, the same id under another
    // name is another flow, halves given late in the file still pair by time, and of two
    // starts at the same time the later in the file is the one an end closes.
    void flowPairingOrder()
    {
        const auto t = load(R"(
            {"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},
            {"ph":"X","name":"b","pid":1,"tid":2,"ts":1,"dur":1},
            {"ph":"X","name":"c","pid":1,"tid":3,"ts":5,"dur":1},
            {"ph":"X","name":"d","pid":1,"tid":4,"ts":7,"dur":1},
            {"ph":"X","name":"e","pid":1,"tid":5,"ts":9,"dur":1},
            {"ph":"f","cat":"x","name":"n","id":"0x100000001","pid":1,"tid":4,"ts":7,"bp":"e"},
            {"ph":"f","cat":"x","name":"n","id":"0x10001","pid":1,"tid":5,"ts":9,"bp":"e"},
            {"ph":"s","cat":"x","name":"n","id":1,"pid":1,"tid":1,"ts":1},
            {"ph":"s","cat":"x","name":"n","id":1,"pid":1,"tid":2,"ts":1},
            {"ph":"f","cat":"x","name":"n","id":1,"pid":1,"tid":3,"ts":5,"bp":"e"},
            {"ph":"s","cat":"x","name":"m","id":1,"pid":1,"tid":1,"ts":1},
            {"ph":"f","cat":"x","name":"m","id":1,"pid":1,"tid":5,"ts":9,"bp":"e"},
            {"ph":"s","cat":"x","name":"n","id":"0x100000001","pid":1,"tid":1,"ts":1},
            {"ph":"s","cat":"x","name":"n","id":"0x10001","pid":1,"tid":2,"ts":1})");
        std::vector<std::tuple<std::string, std::string, std::string, std::uint64_t>> flows;
        for (const auto& f : t->flows())
            flows.emplace_back(t->str(f.name), t->str(t->slices().name[f.from]), t->str(t->slices().name[f.to]), f.id);
        using Flows = decltype(flows);
        // "n" was interned before "m": its flows come first, by id.
        QCOMPARE(
            flows,
            (Flows{{"n", "b", "c", 1}, {"n", "b", "e", 0x10001}, {"n", "a", "d", 0x100000001}, {"m", "a", "e", 1}}));
        // The first of the two starts at ts 1 with id 1 was closed by nothing.
        const auto unpaired = t->unpairedFlowHalves(byName(*t, "a"));
        QCOMPARE(unpaired.size(), std::size_t(1));
        QVERIFY(unpaired[0].isStart);
        QCOMPARE(unpaired[0].id, 1u);
    }

    void flowStepsAndV2()
    {
        const auto t = load(R"(
            {"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},
            {"ph":"X","name":"b","pid":1,"tid":2,"ts":3,"dur":1},
            {"ph":"X","name":"c","pid":1,"tid":3,"ts":5,"dur":1},
            {"ph":"s","cat":"x","name":"n","id":1,"pid":1,"tid":1,"ts":1},
            {"ph":"t","cat":"x","name":"n","id":1,"pid":1,"tid":2,"ts":3},
            {"ph":"f","cat":"x","name":"n","id":1,"pid":1,"tid":3,"ts":5,"bp":"e"},
            {"ph":"X","name":"v2out","pid":2,"tid":1,"ts":1,"dur":1,"bind_id":"0xff","flow_out":true},
            {"ph":"X","name":"v2in","pid":2,"tid":2,"ts":4,"dur":1,"bind_id":255,"flow_in":true})");
        QCOMPARE(arrows(*t), (Arrows{{"a", "b"}, {"b", "c"}, {"v2out", "v2in"}}));
    }

    void asyncSpans()
    {
        const auto t = load(R"(
            {"ph":"b","cat":"io","name":"read","id":1,"pid":3,"ts":1},
            {"ph":"b","cat":"io","name":"write","id":2,"pid":3,"ts":2},
            {"ph":"n","cat":"io","name":"progress","id":1,"pid":3,"ts":2.5},
            {"ph":"e","cat":"io","name":"read","id":1,"pid":3,"ts":4},
            {"ph":"e","cat":"io","name":"write","id":2,"pid":3,"ts":6})");
        QCOMPARE(t->slices().size(), std::size_t(2));
        QCOMPARE(t->slices().duration[byName(*t, "read")], TimeNs(3000));
        QCOMPARE(t->slices().duration[byName(*t, "write")], TimeNs(4000));
        QCOMPARE(t->trackDisplayName(t->trackOf(byName(*t, "read"))), std::string("async io"));
        QCOMPARE(t->instants().size(), std::size_t(1));
    }

    // A large trace has its slice columns reordered in place, part of them on a second thread
    // (TraceBuilder::finish): each slice's fields, GPU-op record and flows must stay together
    // whatever the order the slices came in.
    void largeTraceKeepsEachSlicesFieldsTogether()
    {
        constexpr std::int64_t kSlices = 90'000; // above the size that gets the second thread
        TraceBuilder builder;
        const StringId category = builder.strings().intern("kernel");
        const StringId flowCategory = builder.strings().intern("ac2g");
        std::vector<StringId> names;
        for (int i = 0; i < 50; ++i)
            names.push_back(builder.strings().intern("op" + std::to_string(i)));
        // Groups of 4 on thread group % 3: a 10 us parent every 16 us, three 1 us children in it.
        auto startOf = [](std::int64_t k) { return (k / 4) * 16000 + (k % 4) * 2000; };
        auto durationOf = [](std::int64_t k) { return k % 4 ? TimeNs(1000) : TimeNs(10000); };
        std::vector<std::uint32_t> pendingOf(kSlices);
        std::vector<GpuOpInfo> gpuOps(kSlices);
        for (std::int64_t i = 0; i < kSlices; ++i) {
            const std::int64_t k = i * 7919 % kSlices; // a scrambled file order (7919 is prime to 90000)
            SliceEvent e;
            e.pid = JsonId::fromNumber(1);
            e.tid = JsonId::fromNumber(k / 4 % 3);
            e.start = startOf(k);
            e.duration = durationOf(k);
            e.name = names[std::size_t(k % 50)];
            e.category = category;
            e.rawOffset = std::uint64_t(3 * k);
            e.rawLength = std::uint32_t(k % 1000 + 1);
            e.correlation = k;
            e.externalId = 2 * k + 1;
            if (k % 5 == 0) {
                gpuOps[std::size_t(k)].stream = k;
                e.gpuOp = &gpuOps[std::size_t(k)];
            }
            pendingOf[std::size_t(k)] = builder.addSlice(e);
        }
        for (std::int64_t k = 1; k < kSlices; k += 4) { // an arrow from each first child to the second
            FlowEvent f;
            f.category = flowCategory;
            f.id = std::uint64_t(k);
            f.pendingSlice = pendingOf[std::size_t(k)];
            builder.addFlowEvent(f);
            f.phase = FlowPhase::End;
            f.pendingSlice = pendingOf[std::size_t(k + 1)];
            builder.addFlowEvent(f);
        }
        const Trace t = builder.finish();
        const auto& s = t.slices();
        QCOMPARE(std::int64_t(s.size()), kSlices);
        std::vector<bool> seen(kSlices, false);
        for (SliceId id = 0; id < s.size(); ++id) {
            const std::int64_t k = s.correlation[id];
            QVERIFY(k >= 0 && k < kSlices && !seen[std::size_t(k)]);
            seen[std::size_t(k)] = true;
            QCOMPARE(s.externalId[id], 2 * k + 1);
            QCOMPARE(s.rawOffset[id], std::uint64_t(3 * k));
            QCOMPARE(s.rawLength[id], std::uint32_t(k % 1000 + 1));
            QCOMPARE(s.name[id], names[std::size_t(k % 50)]);
            QCOMPARE(s.start[id], startOf(k));
            QCOMPARE(s.duration[id], durationOf(k));
            QCOMPARE(int(t.rowOf(id).depth), k % 4 ? 1 : 0);
            const GpuOpInfo* op = t.gpuOpInfo(id);
            QCOMPARE(op != nullptr, k % 5 == 0);
            if (op)
                QCOMPARE(op->stream, k);
        }
        for (const auto& row : t.rows())
            QVERIFY(std::is_sorted(s.start.begin() + row.begin, s.start.begin() + row.end));
        QCOMPARE(std::int64_t(t.flows().size()), kSlices / 4);
        for (const auto& f : t.flows()) {
            QCOMPARE(s.correlation[f.from] % 4, std::int64_t(1));
            QCOMPARE(s.correlation[f.to], s.correlation[f.from] + 1);
        }
    }

    void tracksInSortedRunsLayOutAsInAnyOrder()
    {
        // A thread written in three sorted runs (as a tiled or concatenated trace is) takes the
        // merge of its runs; the same events scrambled take a full sort. Both must give the same
        // slice order, rows and depths, and the same instant order.
        constexpr std::int64_t kGroups = 3000; // 3 slices each: parent, child at its start, child later
        auto startOf = [](std::int64_t k) { return (k / 3) * 20000 + (k % 3 == 2 ? 5000 : 0); };
        auto durationOf = [](std::int64_t k) { return k % 3 == 0 ? TimeNs(10000) : TimeNs(1000); };
        const auto build = [&](auto fileIndexToEvent) {
            TraceBuilder builder;
            const StringId name = builder.strings().intern("op");
            for (std::int64_t i = 0; i < 3 * kGroups; ++i) {
                const std::int64_t k = fileIndexToEvent(i);
                SliceEvent e;
                e.pid = JsonId::fromNumber(1);
                e.tid = JsonId::fromNumber(1);
                e.start = startOf(k);
                e.duration = durationOf(k);
                e.name = name;
                e.correlation = k;
                builder.addSlice(e);
                InstantEvent mark;
                mark.pid = e.pid;
                mark.tid = e.tid;
                mark.time = startOf(k) + 7000 + k % 3;
                mark.name = name;
                mark.rawOffset = std::uint64_t(k);
                builder.addInstant(mark);
            }
            return builder.finish();
        };
        constexpr std::int64_t kEvents = 3 * kGroups;
        const Trace runs = build([&](std::int64_t i) { // runs of thirds: 1st, 3rd, then 2nd third of time
            const std::int64_t third = kEvents / 3;
            const std::int64_t part = i / third, at = i % third;
            return (part == 0 ? 0 : part == 1 ? 2 : 1) * third + at;
        });
        const Trace scrambled = build([&](std::int64_t i) { return i * 7919 % kEvents; });
        for (const Trace* t : {&runs, &scrambled}) {
            const auto& s = t->slices();
            QCOMPARE(std::int64_t(s.size()), kEvents);
            QCOMPARE(t->rows().size(), std::size_t(2));
            for (SliceId id = 0; id < s.size(); ++id) {
                const std::int64_t k = s.correlation[id];
                QCOMPARE(int(t->rowOf(id).depth), k % 3 == 0 ? 0 : 1);
                QCOMPARE(s.start[id], startOf(k));
                // Row 0 holds the parents, row 1 the children, each in time order.
                const std::int64_t expected = k % 3 == 0 ? k / 3 : kGroups + 2 * (k / 3) + (k % 3 - 1);
                QCOMPARE(std::int64_t(id), expected);
            }
            const auto& marks = t->instants();
            QCOMPARE(std::int64_t(marks.time.size()), kEvents);
            QVERIFY(std::is_sorted(marks.time.begin(), marks.time.end()));
        }
        QCOMPARE(runs.instants().rawOffset, scrambled.instants().rawOffset);
    }

    void everySplitOffsetGivesTheSameModel()
    {
        const char* events =
            R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1.001,"dur":2.5,"args":{"External id":3}},
            {"ph":"s","cat":"ac2g","name":"ac2g","id":4,"pid":1,"tid":1,"ts":1.001},
            {"ph":"X","cat":"kernel","name":"k\u00e9","pid":0,"tid":7,"ts":9,"dur":1,"args":{"grid":[2,1,1],"correlation":4}},
            {"ph":"f","cat":"ac2g","name":"ac2g","id":4,"pid":0,"tid":7,"ts":9,"bp":"e"},
            {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}})";
        const auto reference = load(events);
        const std::string text = std::string("{\"traceEvents\":[") + events + "]}";
        for (std::size_t chunk = 1; chunk <= text.size(); ++chunk) {
            const auto t = load(events, chunk);
            QVERIFY(t);
            QCOMPARE(t->slices().size(), std::size_t(2));
            QCOMPARE(t->flows().size(), std::size_t(1));
            QCOMPARE(t->slices().start, reference->slices().start);
            QCOMPARE(t->slices().name, reference->slices().name);
            QCOMPARE(t->trackDisplayName(0), std::string("main"));
            QCOMPARE(t->gpuOpInfo(byName(*t, "k\xc3\xa9"))->grid[0], 2);
        }
    }

    // A live recording adds to one builder and takes snapshot after snapshot: each equals the
    // trace a fresh builder finishes from the same events, earlier snapshots stay as they
    // were (their GPU-op records are shared, not copied), and what was added after a mark()
    // is gone after rollback().
    void snapshotsKeepTheBuilder()
    {
        const auto addLaunches = [](TraceBuilder& b, int first, int count) {
            const StringId launch = b.strings().intern("cudaLaunchKernel");
            const StringId kernel = b.strings().intern("gemm");
            const StringId runtime = b.strings().intern("cuda_runtime");
            const StringId kernelCategory = b.strings().intern("kernel");
            const StringId ac2g = b.strings().intern("ac2g");
            for (int i = first; i < first + count; ++i) {
                GpuOpInfo op;
                op.device = 0;
                op.stream = 7;
                op.grid[0] = i; // tells the records apart
                SliceEvent call{
                    JsonId::fromNumber(1), JsonId::fromNumber(2), false, TimeNs(i) * 100, 50, launch, runtime};
                call.correlation = i;
                SliceEvent work{JsonId::fromNumber(0), JsonId::fromNumber(7), true, TimeNs(i) * 100 + 60, 30, kernel,
                                kernelCategory};
                work.correlation = i;
                work.gpuOp = &op;
                const auto from = b.addSlice(call);
                const auto to = b.addSlice(work);
                FlowEvent start;
                start.category = start.name = ac2g;
                start.id = std::uint64_t(i);
                start.pendingSlice = from;
                FlowEvent end = start;
                end.phase = FlowPhase::End;
                end.pendingSlice = to;
                b.addFlowEvent(end); // ends first every other time, as a collector's buffers come
                b.addFlowEvent(start);
            }
        };
        const auto kernelGrids = [](const Trace& t) {
            std::vector<int> grids;
            for (SliceId s = 0; s < t.slices().size(); ++s) {
                if (const auto* op = t.gpuOpInfo(s))
                    grids.push_back(op->grid[0]);
            }
            return grids;
        };
        TraceBuilder live;
        addLaunches(live, 0, 3);
        const Trace first = live.snapshot();
        QCOMPARE(first.slices().size(), std::size_t(6));
        QCOMPARE(first.flows().size(), std::size_t(3));
        addLaunches(live, 3, 2000); // the records outgrow their first block
        const TraceBuilder::Mark mark = live.mark();
        SliceEvent derived{JsonId::fromNumber(1),
                           JsonId::fromNumber(2),
                           false,
                           5,
                           1000000,
                           live.strings().intern("span"),
                           live.strings().intern("user_annotation")};
        live.addSlice(derived);
        live.diagnostics().warn("derived", "for one snapshot");
        const Trace second = live.snapshot();
        live.rollback(mark);
        const Trace third = live.snapshot();

        TraceBuilder fresh;
        addLaunches(fresh, 0, 2003);
        const Trace whole = fresh.finish();
        QCOMPARE(kernelGrids(first), (std::vector<int>{0, 1, 2}));
        QCOMPARE(second.slices().size(), whole.slices().size() + 1);
        QCOMPARE(second.diagnostics().count("derived"), std::uint64_t(1));
        QCOMPARE(third.slices().size(), whole.slices().size());
        QCOMPARE(third.diagnostics().count("derived"), std::uint64_t(0));
        QCOMPARE(third.flows().size(), std::size_t(2003));
        QCOMPARE(arrows(third), arrows(whole));
        QCOMPARE(kernelGrids(third), kernelGrids(whole));
        QCOMPARE(kernelGrids(second), kernelGrids(whole));
        QCOMPARE(third.slices().start, whole.slices().start);
        QCOMPARE(third.slices().row, whole.slices().row);
        for (std::size_t f = 0; f < whole.flows().size(); ++f) {
            QCOMPARE(third.flows()[f].from, whole.flows()[f].from);
            QCOMPARE(third.flows()[f].to, whole.flows()[f].to);
        }
        QCOMPARE(kernelGrids(first), (std::vector<int>{0, 1, 2})); // after the builder grew
    }

    // One rank of a merged collector file (Workspace's split): the trace of some processes
    // keeps every per-slice column, its ops' shape args, its own flows and its own extent.
    void subsetKeepsEveryColumnOfItsProcesses()
    {
        const auto t = load(R"(
            {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":10,"args":{"Input Dims":[[2,3],[3,4]],"External id":1}},
            {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":2,"tid":2,"ts":100,"dur":10,"args":{"Input Dims":[[8,8],[8,8]],"External id":1}},
            {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":2,"tid":2,"ts":102,"dur":2,"args":{"correlation":7}},
            {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":105,"dur":20,"args":{"correlation":7}},
            {"ph":"X","cat":"cpu_op","name":"aten::add","pid":2,"tid":2,"ts":130,"dur":5,"args":{"Input Dims":[[8,8],[8,8]]}},
            {"ph":"s","cat":"ac2g","name":"ac2g","id":7,"pid":2,"tid":2,"ts":102},
            {"ph":"f","cat":"ac2g","name":"ac2g","id":7,"pid":0,"tid":7,"ts":105,"bp":"e"},
            {"ph":"s","cat":"fwdbwd","name":"fwdbwd","id":3,"pid":1,"tid":1,"ts":0},
            {"ph":"f","cat":"fwdbwd","name":"fwdbwd","id":3,"pid":2,"tid":2,"ts":130,"bp":"e"})");
        QVERIFY(t);
        std::vector<std::uint32_t> rank1; // pid 2 and the GPU, as the workspace splits a rank
        for (std::uint32_t p = 0; p < t->processes().size(); ++p) {
            if (t->processes()[p].pid != JsonId::fromNumber(1))
                rank1.push_back(p);
        }
        QCOMPARE(rank1.size(), std::size_t(2));
        const auto sub = TraceBuilder::subsetOf(*t, rank1);
        const SliceTable& s = sub->slices();
        QCOMPARE(s.size(), std::size_t(4));
        for (const std::size_t column :
             {s.duration.size(), s.name.size(), s.category.size(), s.row.size(), s.rawOffset.size(), s.rawLength.size(),
              s.correlation.size(), s.externalId.size(), s.shapeArgs.size()})
            QCOMPARE(column, s.size());
        // Each kept op's shape args are its own (pid 2's 8x8), as in the whole trace.
        const SliceId mm = byName(*sub, "aten::mm"), add = byName(*sub, "aten::add");
        QVERIFY(mm != kNoSlice && add != kNoSlice);
        QCOMPARE(sub->shapeArgs().view(s.shapeArgs[mm]).dims, std::string_view("[[8,8],[8,8]]"));
        QCOMPARE(sub->shapeArgs().view(s.shapeArgs[add]),
                 t->shapeArgs().view(t->slices().shapeArgs[byName(*t, "aten::add")]));
        // The launch -> kernel arrow stays (found from either end); the fwdbwd arrow from pid 1 goes.
        QCOMPARE(arrows(*sub), (Arrows{{"cudaLaunchKernel", "gemm"}}));
        const SliceId gemm = byName(*sub, "gemm");
        QCOMPARE(sub->incomingFlows(gemm).size(), std::size_t(1));
        QCOMPARE(sub->outgoingFlows(byName(*sub, "cudaLaunchKernel")).size(), std::size_t(1));
        QVERIFY(sub->incomingFlows(add).empty());
        QCOMPARE(sub->startTime(), TimeNs(100'000));
        QCOMPARE(sub->endTime(), TimeNs(135'000));
    }

    void appendOnlyArrayNeverRewritesWhatIsShared()
    {
        AppendOnlyArray<int> a;
        for (int i = 0; i < 3; ++i)
            a.append(i);
        const auto held = a.share();
        for (int i = 3; i < 5000; ++i) // several moves to larger blocks
            a.append(i);
        QCOMPARE(a.size(), std::size_t(5000));
        QCOMPARE(a[4999], 4999);
        QCOMPARE(held[2], 2);
        const auto heldLarge = a.share();
        a.truncate(10); // shared: the next appends go to a block of its own
        a.append(-1);
        QCOMPARE(a[10], -1);
        QCOMPARE(heldLarge[10], 10);
        AppendOnlyArray<int> copy(a);
        copy.append(-2);
        a.append(-3);
        QCOMPARE(copy[11], -2);
        QCOMPARE(a[11], -3);
        QCOMPARE(copy.size(), std::size_t(12));
    }
};

QTEST_APPLESS_MAIN(TestTraceBuilder)
#include "tst_tracebuilder.moc"
