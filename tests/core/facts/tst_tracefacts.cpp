// TraceFacts: step windows and the launch <-> GPU op <-> CPU op links, checked against the
// fixture's own args (correlation, External id) read through the JSON DOM.
#include "core/facts/tracefacts.h"
#include "core/gpu/gpureport.h"
#include "core/loading/loader.h"
#include "core/stats/operatortable.h"
#include "fixtureevents.h"
#include "fixtureloader.h"

#include <QTest>

#include <future>
#include <limits>
#include <map>

using namespace ks;

class TstTraceFacts : public QObject {
    Q_OBJECT

private slots:
    void stepsAreTheProfilerSteps()
    {
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("train_baseline"));
        const kstest::FixtureEvents fixture("train_baseline");
        QVERIFY(facts->hasSteps());
        QCOMPARE(facts->stepCount(), fixture.steps.size()); // 3 active steps
        QCOMPARE(facts->stepCount(), std::size_t(3));
        QCOMPARE(facts->windows.steps[0].name, std::string("3"));
        // A step spans at least its host range.
        double hostUs = 0;
        for (const auto& [a, b] : fixture.steps)
            hostUs += b - a;
        QVERIFY(double(facts->meanStepTime()) / 1000.0 >= hostUs / double(fixture.steps.size()) - 0.001);
    }

    void everyKernelFindsItsLaunchByCorrelation()
    {
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("train_baseline"));
        const Trace& trace = *facts->trace;
        const kstest::FixtureEvents fixture("train_baseline");
        std::map<std::int64_t, std::string> launchNames; // correlation -> runtime/driver name
        std::size_t expectedLinked = 0;
        for (const auto& e : fixture.slices) {
            const std::string cat = e.value("cat", "");
            if ((cat == "cuda_runtime" || cat == "cuda_driver") && e["args"].contains("correlation"))
                launchNames[e["args"]["correlation"].get<std::int64_t>()] = e["name"];
        }
        for (const auto& e : fixture.slices) {
            const std::string cat = e.value("cat", "");
            if ((cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset")
                && launchNames.count(e["args"]["correlation"].get<std::int64_t>()))
                ++expectedLinked;
        }
        std::size_t linked = 0, gpuOps = 0;
        for (SliceId s = 0; s < trace.slices().size(); ++s) {
            if (!facts::isDeviceKind(facts->kinds[s]))
                continue;
            ++gpuOps;
            const SliceId launch = facts->links.launchOf(s);
            if (launch == kNoSlice)
                continue;
            ++linked;
            QCOMPARE(std::string(trace.str(trace.slices().name[launch])),
                     launchNames.at(trace.slices().correlation[s]));
            const auto ops = facts->links.gpuOpsOf(launch);
            QVERIFY(std::find(ops.begin(), ops.end(), s) != ops.end());
        }
        QCOMPARE(gpuOps, std::size_t(924 + 21 + 27));
        QCOMPARE(linked, expectedLinked);
        QVERIFY(linked > 900);
    }

    // torch.compile: Inductor launches its Triton kernels through the driver (cuLaunchKernel),
    // each under a record_function of the kernel's own name. CUDA graphs: one cudaGraphLaunch
    // runs every kernel and memset of its graph (21 forward, 55 backward; 3 steps).
    void compiledKernelsLinkToDriverLaunchesAndGraphs()
    {
        const auto compiled = facts::makeTraceFacts(testing::fixtureTrace("compiled"));
        const Trace& trace = *compiled->trace;
        auto name = [](const Trace& t, SliceId s) { return std::string(t.str(t.slices().name[s])); };
        std::size_t triton = 0;
        for (SliceId s = 0; s < trace.slices().size(); ++s) {
            if (!facts::isDeviceKind(compiled->kinds[s]) || !name(trace, s).starts_with("triton_"))
                continue;
            ++triton;
            const SliceId launch = compiled->links.launchOf(s);
            QVERIFY(launch != kNoSlice);
            QCOMPARE(name(trace, launch), std::string("cuLaunchKernel"));
            const SliceId op = compiled->links.opOf(launch);
            QVERIFY(op != kNoSlice);
            QCOMPARE(name(trace, op), name(trace, s));
        }
        QCOMPARE(triton, std::size_t(123));

        const auto graphs = facts::makeTraceFacts(testing::fixtureTrace("cudagraphs"));
        const Trace& replayed = *graphs->trace;
        std::vector<std::size_t> perLaunch;
        for (SliceId s = 0; s < replayed.slices().size(); ++s) {
            if (name(replayed, s) == "cudaGraphLaunch")
                perLaunch.push_back(graphs->links.gpuOpsOf(s).size());
        }
        std::sort(perLaunch.begin(), perLaunch.end());
        QCOMPARE(perLaunch, (std::vector<std::size_t>{21, 21, 21, 55, 55, 55}));
    }

    void syncLeadsBackToItemAndItsPythonFrame()
    {
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("train_baseline"));
        const Trace& trace = *facts->trace;
        int syncsUnderItem = 0;
        for (SliceId s = 0; s < trace.slices().size(); ++s) {
            if (trace.str(trace.slices().name[s]) != "cudaStreamSynchronize")
                continue;
            const SliceId op = facts->links.opOf(s);
            QVERIFY(op != kNoSlice);
            const std::string_view opName = trace.str(trace.slices().name[op]);
            // The syncs are made under aten::_local_scalar_dense (loss.item()) or aten::copy_ (x.to()).
            QVERIFY2(opName == "aten::_local_scalar_dense" || opName == "aten::copy_", std::string(opName).c_str());
            const auto launches = facts->links.launchesOf(op);
            QVERIFY(std::find(launches.begin(), launches.end(), s) != launches.end());
            if (opName == "aten::_local_scalar_dense") {
                ++syncsUnderItem;
                const SliceId frame = facts::pythonFrameOf(trace, s);
                QVERIFY(frame != kNoSlice); // with_stack was on
                QCOMPARE(trace.classOf(frame), SliceClass::PythonFunction);
                QVERIFY(trace.slices().start[frame] <= trace.slices().start[s]);
                QVERIFY(trace.slices().end(frame) >= trace.slices().end(s));
            }
            QVERIFY(facts->hostStepOf(trace.slices().start[s], trace.slices().end(s)) >= 0);
        }
        QCOMPARE(syncsUnderItem, 3);
    }

    void deviceSyncAfterTheLastStepIsInNoStep()
    {
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("train_baseline"));
        const Trace& trace = *facts->trace;
        int found = 0;
        for (SliceId s = 0; s < trace.slices().size(); ++s) {
            if (trace.str(trace.slices().name[s]) == "cudaDeviceSynchronize") {
                ++found;
                QCOMPARE(facts->hostStepOf(trace.slices().start[s], trace.slices().end(s)), -1);
            }
        }
        QCOMPARE(found, 1);
    }

    void withoutStepsTheTraceIsOneStep()
    {
        // square has no ProfilerStep, no step labels and no optimizer (multistream's iter0..3
        // labels are its steps: tests/core/facts/tst_stepfinder.cpp).
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("square"));
        QCOMPARE(facts->windows.sourceName, std::string("none"));
        QVERIFY(!facts->hasSteps());
        QCOMPARE(facts->stepCount(), std::size_t(1));
        QCOMPARE(facts->hostStepOf(facts->windows.stepsStart, facts->windows.stepsStart), 0);
    }

    // Overlapping steps of 4e18 ns each (hostile input): their total saturates instead of
    // overflowing, so the mean stays within the 64-bit range.
    void meanStepTimeOfHugeStepsSaturates()
    {
        std::string text = R"({"traceEvents":[)";
        for (int i = 1; i <= 3; ++i)
            text += std::string(i > 1 ? "," : "") + R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)"
                + std::to_string(i) + R"(","pid":1,"tid":1,"ts":)" + std::to_string(i) + R"(,"dur":4000000000000000})";
        text += "]}";
        const auto loaded = loadTraceFromMemory(text, "steps");
        QVERIFY(loaded.ok());
        const auto facts = facts::makeTraceFacts(loaded.trace);
        QCOMPARE(facts->stepCount(), std::size_t(3));
        QCOMPARE(facts->meanStepTime(), std::numeric_limits<TimeNs>::max() / 3);
    }

    // The GPU report and the operator table take the kinds, windows and links built once.
    void gpuReportAndOperatorTableUseTheFacts()
    {
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace("train_baseline"));
        const Trace& trace = *facts->trace;
        const auto report = gpu::makeGpuReport(facts);
        QCOMPARE(report->facts, facts);
        QCOMPARE(report->analysis.windows.steps.size(), facts->windows.steps.size());
        QCOMPARE(report->breakdown.steps.size(), std::size_t(3));
        const auto alone = gpu::makeGpuReport(facts->trace); // builds its own facts: same numbers
        QCOMPARE(alone->breakdown.average.total, report->breakdown.average.total);
        QCOMPARE(alone->nvprof.gpuActivities.size(), report->nvprof.gpuActivities.size());

        const OperatorTable fromFacts = computeOperatorTable(*facts);
        const OperatorTable fromTrace = computeOperatorTable(trace);
        QCOMPARE(fromFacts.rows.size(), fromTrace.rows.size());
        QVERIFY(fromFacts.selfDeviceTotal > 0);
        QCOMPARE(fromFacts.selfDeviceTotal, fromTrace.selfDeviceTotal);
        // Every kernel's time is credited to the op whose External id its launch carries.
        std::map<std::int64_t, TimeNs> launchedTime; // External id of the launch -> kernel ns
        const auto& slices = trace.slices();
        for (SliceId s = 0; s < slices.size(); ++s) {
            if (trace.classOf(s) != SliceClass::Kernel)
                continue;
            const SliceId launch = facts->links.launchOf(s);
            QVERIFY(launch != kNoSlice);
            launchedTime[slices.externalId[launch]] += slices.duration[s];
        }
        for (const OperatorRow& row : fromFacts.rows) {
            if (row.isDevice || row.slices.size() != 1 || row.deviceTotal == 0)
                continue;
            const SliceId op = row.slices.front(); // one occurrence: its own launches and its children's
            QVERIFY(row.deviceTotal >= launchedTime[slices.externalId[op]]);
        }
    }

    // The GUI's analyses of one trace share one set of facts while any of them holds it:
    // callers at the same time get the set being built, later callers the kept one; once the
    // last holder lets go, the next caller builds anew (nothing is cached past its holders).
    void sharedFactsAreBuiltOncePerTraceWhileHeld()
    {
        const LoadResult loaded = loadTraceFile(std::string(KS_TEST_DATA) + "/train_baseline.pt.trace.json.gz");
        QVERIFY(loaded.ok());
        std::vector<std::future<std::shared_ptr<const facts::TraceFacts>>> callers;
        for (int i = 0; i < 4; ++i)
            callers.push_back(std::async(std::launch::async, [&] { return facts::sharedTraceFacts(loaded.trace); }));
        auto first = callers.front().get();
        QVERIFY(first);
        QCOMPARE(first->trace, loaded.trace);
        for (std::size_t i = 1; i < callers.size(); ++i)
            QCOMPARE(callers[i].get(), first);
        QCOMPARE(facts::sharedTraceFacts(loaded.trace), first);
        QCOMPARE(first->windows.steps.size(), facts::makeTraceFacts(loaded.trace)->windows.steps.size());

        // Another trace gets its own facts.
        const auto other = facts::sharedTraceFacts(testing::fixtureTrace("multistream"));
        QVERIFY(other != first);
        QCOMPARE(other->trace, testing::fixtureTrace("multistream"));

        const std::weak_ptr<const facts::TraceFacts> watch = first;
        first.reset();
        QVERIFY(watch.expired()); // the table did not keep it alive
        const auto rebuilt = facts::sharedTraceFacts(loaded.trace);
        QCOMPARE(rebuilt->trace, loaded.trace);
        QCOMPARE(rebuilt->windows.steps.size(), std::size_t(3));
    }
};

QTEST_GUILESS_MAIN(TstTraceFacts)
#include "tst_tracefacts.moc"
