// Trace building from recorded record streams: ac2g joins in both arrival orders, graph
// launches (1 -> N), NVTX ranges, occupancy against the fixture's values, crashes, two
// processes with equal correlation ids, and the written file read back by our loader.
#include "core/loading/loader.h"
#include "core/writing/writer.h"
#include "recordstream.h"

#include <QTest>

#include <nlohmann/json.hpp>
#include <sstream>

using namespace ks;
using namespace ks::collector;
using namespace ks::collector::test;

namespace {

// The API slice that the flow ending at `gpuOp` starts from, or kNoSlice.
SliceId launchOf(const Trace& t, SliceId gpuOp)
{
    const auto incoming = t.incomingFlows(gpuOp);
    return incoming.empty() ? kNoSlice : t.flows()[incoming[0]].from;
}

} // namespace

class TestProcessRecorder : public QObject {
    Q_OBJECT
private slots:
    void kernelArgsAndNames()
    {
        Stream s;
        s.send(h200());
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z10busyKernelPfi");
        s.api(10, 100, 5);
        s.kernel(10, 110, 20);
        const Trace t = s.trace();
        const auto kernels = slicesNamed(t, "busyKernel(float*, int)");
        QCOMPARE(kernels.size(), std::size_t(1));
        QCOMPARE(slicesNamed(t, "cudaLaunchKernel").size(), std::size_t(1)); // _v7000 stripped
        const SliceId k = kernels[0];
        QCOMPARE(t.classOf(k), SliceClass::Kernel);
        QCOMPARE(t.slices().start[k], TimeNs(110000));
        QCOMPARE(t.slices().duration[k], TimeNs(20000));
        const GpuOpInfo* info = t.gpuOpInfo(k);
        QVERIFY(info);
        QCOMPARE(info->grid[0], 264);
        QCOMPARE(info->block[0], 256);
        QCOMPARE(info->stream, std::int64_t(7));
        QCOMPARE(info->sharedMemory, std::int64_t(4096));
        const auto args = argsOf(t, k);
        QVERIFY(args["grid"] == nlohmann::json({264, 1, 1}));
        QCOMPARE(args["registers per thread"].get<int>(), 32);
        QCOMPARE(args["correlation"].get<int>(), 10);
        QCOMPARE(args["blocks per SM"].get<double>(), 2.0);
        QCOMPARE(args["warps per SM"].get<double>(), 16.0);
        QCOMPARE(t.processDisplayName(t.tracks()[t.trackOf(k)].process).find("GPU 0") != std::string::npos, true);
        QCOMPARE(t.baseTimeNs(), kBase);
        QCOMPARE(t.deviceProperties().size(), std::size_t(1));
        QCOMPARE(t.deviceProperties()[0].numSms, 132);
    }

    // Golden values from the fixture big.pt.trace.json.gz (collector-notes §7).
    void occupancyMatchesKineto_data()
    {
        QTest::addColumn<int>("gridX");
        QTest::addColumn<int>("gridY");
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("registers");
        QTest::addColumn<int>("sharedMemory");
        QTest::addColumn<double>("blocksPerSm");
        QTest::addColumn<double>("warpsPerSm");
        QTest::addColumn<int>("occupancy");
        QTest::newRow("sm80_xmma_gemm, register-limited")
            << 32 << 24 << 128 << 218 << 19200 << 5.818182 << 23.272728 << 13;
        QTest::newRow("vectorized_elementwise") << 2048 << 1 << 128 << 32 << 0 << 15.515152 << 62.060608 << 97;
    }

    void occupancyMatchesKineto()
    {
        QFETCH(int, gridX);
        QFETCH(int, gridY);
        QFETCH(int, threads);
        QFETCH(int, registers);
        QFETCH(int, sharedMemory);
        QFETCH(double, blocksPerSm);
        QFETCH(double, warpsPerSm);
        QFETCH(int, occupancy);
        Stream s;
        s.send(h200());
        s.string(2, "k");
        wire::Kernel k;
        k.start = kBase + 1000;
        k.end = kBase + 2000;
        k.correlation = 1;
        k.name = 2;
        k.grid[0] = gridX;
        k.grid[1] = gridY;
        k.grid[2] = 1;
        k.block[0] = threads;
        k.block[1] = k.block[2] = 1;
        k.registersPerThread = registers;
        k.staticSharedMemory = sharedMemory;
        s.send(k);
        const Trace t = s.trace();
        const SliceId id = slicesNamed(t, "k").at(0);
        const auto args = argsOf(t, id);
        QCOMPARE(args["est. achieved occupancy %"].get<int>(), occupancy);
        QVERIFY(std::abs(args["blocks per SM"].get<double>() - blocksPerSm) < 1e-5);
        QVERIFY(std::abs(args["warps per SM"].get<double>() - warpsPerSm) < 1e-5);
        QCOMPARE(t.gpuOpInfo(id)->estAchievedOccupancyPct, float(occupancy));
    }

    // A corrupted record (block extents whose product overflows int32, more registers than
    // any GPU has) gets no launch-derived args instead of overflowing.
    void absurdLaunchHasNoOccupancy_data()
    {
        QTest::addColumn<int>("blockExtent");
        QTest::addColumn<int>("registers");
        QTest::newRow("block 2^20 cubed") << (1 << 20) << 32;
        QTest::newRow("2^27 registers") << 128 << (1 << 27);
    }

    void absurdLaunchHasNoOccupancy()
    {
        QFETCH(int, blockExtent);
        QFETCH(int, registers);
        Stream s;
        s.send(h200());
        s.string(2, "k");
        wire::Kernel k;
        k.start = kBase + 1000;
        k.end = kBase + 2000;
        k.correlation = 1;
        k.name = 2;
        k.grid[0] = 264;
        k.grid[1] = k.grid[2] = 1;
        k.block[0] = blockExtent;
        k.block[1] = k.block[2] = blockExtent == 128 ? 1 : blockExtent;
        k.registersPerThread = registers;
        s.send(k);
        const Trace t = s.trace();
        const SliceId id = slicesNamed(t, "k").at(0);
        const auto args = argsOf(t, id);
        QVERIFY(!args.contains("blocks per SM"));
        QVERIFY(!args.contains("warps per SM"));
        QVERIFY(!args.contains("est. achieved occupancy %"));
        QCOMPARE(args["block"][0].get<int>(), blockExtent);
        QVERIFY(t.gpuOpInfo(id)->estAchievedOccupancyPct < 0);
    }

    void ac2gJoinsInBothOrders_data()
    {
        QTest::addColumn<bool>("kernelFirst");
        QTest::newRow("API first") << false;
        QTest::newRow("kernel first") << true;
    }

    void ac2gJoinsInBothOrders()
    {
        QFETCH(bool, kernelFirst);
        Stream s;
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z4busyPfi");
        if (kernelFirst) {
            s.kernel(5, 110, 20);
            s.api(5, 100, 5);
        } else {
            s.api(5, 100, 5);
            s.kernel(5, 110, 20);
        }
        s.api(6, 200, 5); // a call without GPU work: no flow
        const Trace t = s.trace();
        QCOMPARE(t.flows().size(), std::size_t(1));
        const SliceId kernel = slicesNamed(t, "busy(float*, int)").at(0);
        const SliceId launch = launchOf(t, kernel);
        QVERIFY(launch != kNoSlice);
        QCOMPARE(t.slices().start[launch], TimeNs(100000));
        QCOMPARE(t.str(t.slices().category[launch]), std::string_view("cuda_runtime"));
        QCOMPARE(t.outgoingFlows(launch).size(), std::size_t(1));
        QCOMPARE(t.str(t.flows()[0].category), std::string_view("ac2g"));
    }

    void graphLaunchFlowsToEveryNode()
    {
        Stream s;
        s.string(1, "cudaGraphLaunch_v10000");
        s.string(2, "_Z12graphKernelAPf");
        s.string(3, "_Z12graphKernelBPf");
        for (std::uint32_t launch = 0; launch < 3; ++launch) {
            const std::uint32_t correlation = 100 + launch;
            const std::int64_t at = 1000 * launch;
            s.kernel(correlation, at + 10, 5, 7, 2);
            s.kernel(correlation, at + 20, 5, 7, 3);
            wire::Memset m;
            m.start = kBase + (at + 30) * 1000;
            m.end = m.start + 2000;
            m.bytes = 4096;
            m.memoryKind = 3;
            m.stream = 7;
            m.correlation = correlation;
            s.send(m);
            s.api(correlation, at, 8, 1);
        }
        const Trace t = s.trace();
        QCOMPARE(t.flows().size(), std::size_t(9));
        const auto launches = slicesNamed(t, "cudaGraphLaunch");
        QCOMPARE(launches.size(), std::size_t(3));
        for (SliceId l : launches)
            QCOMPARE(t.outgoingFlows(l).size(), std::size_t(3));
        const auto memsets = slicesNamed(t, "Memset (Device)");
        QCOMPARE(memsets.size(), std::size_t(3));
        QCOMPARE(t.gpuOpInfo(memsets[0])->bytes, std::int64_t(4096));
        QCOMPARE(launchOf(t, memsets[1]), launches[1]);
    }

    void memcpyNamesAndBandwidth()
    {
        Stream s;
        wire::Memcpy m;
        m.start = kBase + 1000;
        m.end = m.start + 100000; // 100 µs
        m.bytes = 1 << 20;
        m.copyKind = 1;
        m.srcKind = 1;
        m.dstKind = 3;
        m.stream = 7;
        m.correlation = 3;
        s.send(m);
        m.copyKind = 2;
        m.srcKind = 3;
        m.dstKind = 2;
        m.correlation = 4;
        s.send(m);
        const Trace t = s.trace();
        const auto htod = slicesNamed(t, "Memcpy HtoD (Pageable -> Device)");
        QCOMPARE(htod.size(), std::size_t(1));
        QCOMPARE(slicesNamed(t, "Memcpy DtoH (Device -> Pinned)").size(), std::size_t(1));
        QCOMPARE(t.classOf(htod[0]), SliceClass::Memcpy);
        const auto args = argsOf(t, htod[0]);
        QCOMPARE(args["bytes"].get<int>(), 1 << 20);
        QCOMPARE(args["memory bandwidth (GB/s)"].get<double>(), 1048576.0 / 100000.0);
    }

    void nvtxRangesNestOnTheirThread()
    {
        Stream s;
        s.string(11, "outer");
        s.string(12, "inner");
        s.string(13, "start-end");
        s.string(14, "my-domain");
        s.string(15, "mark");
        using M = wire::Marker;
        s.marker(1, M::Start, 100, 11);
        s.marker(2, M::Start, 110, 12);
        s.marker(2, M::End, 150);
        s.marker(1, M::End, 200);
        s.marker(3, M::End, 400); // end arrives before its start
        s.marker(3, M::Start, 300, 13, 14);
        s.marker(4, M::Instant, 250, 15);
        s.marker(5, M::Start, 500, 11); // never ended
        s.recorder().connectionClosed();
        const Trace t = s.trace();
        const SliceId outer = slicesNamed(t, "outer").at(0);
        const SliceId inner = slicesNamed(t, "inner").at(0);
        QCOMPARE(t.trackOf(outer), t.trackOf(inner));
        QCOMPARE(t.rowOf(outer).depth, std::uint16_t(0));
        QCOMPARE(t.rowOf(inner).depth, std::uint16_t(1));
        QCOMPARE(t.slices().duration[outer], TimeNs(100000));
        QCOMPARE(t.classOf(outer), SliceClass::UserAnnotation);
        QCOMPARE(t.tracks()[t.trackOf(outer)].tid, JsonId::fromNumber(kTid));
        const SliceId startEnd = slicesNamed(t, "start-end").at(0);
        QCOMPARE(t.slices().start[startEnd], TimeNs(300000));
        QCOMPARE(t.slices().duration[startEnd], TimeNs(100000));
        QCOMPARE(argsOf(t, startEnd)["domain"].get<std::string>(), std::string("my-domain"));
        QCOMPARE(slicesNamed(t, "outer").size(), std::size_t(1)); // the unended one is not drawn
        QCOMPARE(s.recorder().data().counts.unpairedMarkers, std::uint64_t(1));
        QCOMPARE(s.recorder().data().counts.marks, std::uint64_t(1));
        bool markFound = false;
        for (std::uint32_t i = 0; i < t.instants().size(); ++i)
            markFound |= t.str(t.instants().name[i]) == "mark" && t.instants().time[i] == 250000;
        QVERIFY(markFound);
    }

    // kineto's gpu_user_annotation: each range spans its launches' GPU work per stream.
    void nvtxRangesProjectOntoStreams()
    {
        Stream s;
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z4busyPfi");
        s.string(11, "outer");
        s.string(12, "inner");
        using M = wire::Marker;
        s.marker(1, M::Start, 100, 11);
        s.marker(2, M::Start, 105, 12);
        s.api(1, 110, 5);
        s.kernel(1, 130, 20, 7);
        s.marker(2, M::End, 120);
        s.api(2, 125, 5);
        s.kernel(2, 160, 20, 8);
        s.marker(1, M::End, 140);
        s.api(3, 150, 5); // outside every range
        s.kernel(3, 200, 20, 7);
        const Trace t = s.trace();
        std::vector<SliceId> projected;
        for (SliceId id = 0; id < t.slices().size(); ++id) {
            if (t.classOf(id) == SliceClass::GpuUserAnnotation)
                projected.push_back(id);
        }
        QCOMPARE(projected.size(), std::size_t(3)); // outer on streams 7 and 8, inner on 7
        for (SliceId id : projected) {
            const auto name = t.str(t.slices().name[id]);
            const auto stream = t.tracks()[t.trackOf(id)].tid.number;
            QVERIFY(t.processes()[t.tracks()[t.trackOf(id)].process].isDevice);
            if (name == "inner") {
                QCOMPARE(stream, std::int64_t(7));
                QCOMPARE(t.slices().start[id], TimeNs(130000 - 1));
                QCOMPARE(t.slices().duration[id], TimeNs(20000 + 2));
            } else {
                QCOMPARE(name, std::string_view("outer"));
                QCOMPARE(t.slices().start[id], TimeNs((stream == 7 ? 130000 : 160000) - 1));
            }
        }
        // The kernel sits under both annotations on its row, without overlap warnings.
        SliceId first = kNoSlice;
        for (SliceId k : slicesNamed(t, "busy(float*, int)")) {
            if (t.slices().start[k] == 130000)
                first = k;
        }
        QVERIFY(first != kNoSlice);
        QCOMPARE(t.rowOf(first).depth, std::uint16_t(2));
        QCOMPARE(t.diagnostics().count("partial-overlap"), std::uint64_t(0));
    }

    void unusableGpuTimesAreCounted()
    {
        Stream s;
        s.string(2, "k");
        wire::Kernel k;
        k.name = 2;
        k.correlation = 1;
        s.send(k); // start = end = 0: device timestamp buffer ran out
        k.start = kBase + 5000;
        k.end = 0; // still running at the forced flush
        s.send(k);
        QCOMPARE(s.recorder().data().counts.zeroTimestamps, std::uint64_t(1));
        QCOMPARE(s.recorder().data().counts.unfinished, std::uint64_t(1));
        QCOMPARE(s.recorder().data().counts.kernels, std::uint64_t(0));
        QVERIFY(slicesNamed(s.trace(), "k").empty());
    }

    void crashIsMarked()
    {
        Stream s;
        s.string(2, "_Z11crashKernelPi");
        for (std::uint32_t i = 0; i < 5; ++i)
            s.kernel(i + 1, 100 * i, 10);
        s.recorder().connectionClosed(); // EOF without GOODBYE
        QCOMPARE(s.recorder().data().state, ConnectionState::Terminated);
        const Trace t = s.trace();
        QCOMPARE(slicesNamed(t, "crashKernel(int*)").size(), std::size_t(5));
        QCOMPARE(t.diagnostics().count("process-terminated"), std::uint64_t(1));
        bool marked = false;
        for (std::uint32_t i = 0; i < t.instants().size(); ++i)
            marked |= t.str(t.instants().name[i]) == "Process terminated" && t.instants().time[i] == 410000;
        QVERIFY(marked);
    }

    void goodbyeEndsCleanly()
    {
        Stream s;
        s.send(wire::Goodbye{3, 1, 1});
        s.recorder().connectionClosed();
        QCOMPARE(s.recorder().data().state, ConnectionState::Finished);
        QCOMPARE(s.trace().diagnostics().count("process-terminated"), std::uint64_t(0));
    }

    void stoppedRecordingIsNotACrash()
    {
        Stream s;
        s.recorder().connectionClosed(true); // the collector closed it: --duration, Stop
        QCOMPARE(s.recorder().data().state, ConnectionState::Detached);
        const Trace t = s.trace();
        QCOMPARE(t.diagnostics().count("process-terminated"), std::uint64_t(0));
        QCOMPARE(t.instants().size(), std::size_t(1));
        QCOMPARE(t.str(t.instants().name[0]), std::string_view("Recording stopped"));
    }

    void errorsAndDropsAreReported()
    {
        Stream s;
        s.send(wire::Error{static_cast<std::int32_t>(wire::ErrorCode::CuptiInUse), "another CUPTI client"});
        s.send(wire::Dropped{14403, 2, 0, 0});
        const Trace t = s.trace();
        QCOMPARE(t.diagnostics().count("collector-error"), std::uint64_t(1));
        QCOMPARE(t.diagnostics().count("dropped-records"), std::uint64_t(1));
        QCOMPARE(s.recorder().data().droppedTotal(), std::uint64_t(14403));
    }

    // Two processes with equal correlation ids, merged: GPU rows and flows stay apart.
    void mergedProcessesStayApart()
    {
        auto arena = std::make_shared<TextArena>();
        const auto namer = [](std::int64_t, std::int64_t tid) { return "thread " + std::to_string(tid); };
        std::vector<RecordedProcess> processes;
        for (std::int64_t pid : {100, 200}) {
            wire::Hello h;
            h.pid = pid;
            h.executable = "/bin/worker";
            ProcessRecorder r(h, kBase, arena, namer);
            const auto feed = [&](const auto& record) {
                std::vector<std::uint8_t> bytes;
                wire::appendFrame(bytes, record);
                wire::FrameDecoder d;
                d.append(bytes.data(), bytes.size());
                wire::Frame f;
                QCOMPARE(d.next(f), wire::FrameDecoder::Status::Frame);
                QVERIFY(r.handle(f));
            };
            feed(wire::StringDef{1, "cudaLaunchKernel_v7000"});
            feed(wire::StringDef{2, "_Z4busyPfi"});
            wire::Api api;
            api.start = kBase + 100000;
            api.end = api.start + 5000;
            api.name = 1;
            api.correlation = 7; // equal ids in both processes
            api.threadId = static_cast<std::uint64_t>(pid);
            feed(api);
            wire::Kernel k;
            k.start = kBase + 110000;
            k.end = k.start + 20000;
            k.stream = 7;
            k.correlation = 7;
            k.name = 2;
            feed(k);
            processes.push_back(r.data());
        }
        const Trace t = buildCollectedTrace(processes, {kBase, arena, {}});
        const auto kernels = slicesNamed(t, "busy(float*, int)");
        QCOMPARE(kernels.size(), std::size_t(2));
        QVERIFY(t.trackOf(kernels[0]) != t.trackOf(kernels[1]));
        QCOMPARE(t.flows().size(), std::size_t(2));
        for (SliceId k : kernels) {
            const SliceId launch = launchOf(t, k);
            QVERIFY(launch != kNoSlice);
            // Each kernel's arrow comes from its own process's call.
            const auto& gpuProcess = t.processes()[t.tracks()[t.trackOf(k)].process];
            const auto& cpuProcess = t.processes()[t.tracks()[t.trackOf(launch)].process];
            QVERIFY(gpuProcess.isDevice);
            QVERIFY(t.str(gpuProcess.pid.text).find("pid " + std::to_string(cpuProcess.pid.number))
                    != std::string_view::npos);
        }
    }

    // The written file opens in our loader with the same events, args and flows.
    void writtenTraceLoadsBack()
    {
        Stream s;
        s.send(h200());
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z10busyKernelPfi");
        s.string(11, "outer");
        s.marker(1, wire::Marker::Start, 90, 11);
        s.api(10, 100, 5);
        s.kernel(10, 110, 20);
        s.marker(1, wire::Marker::End, 140);
        s.send(wire::Goodbye{});
        const Trace original = s.trace();
        std::ostringstream json;
        QVERIFY(writeTraceJson(original, json).ok);
        const auto loaded = loadTraceFromMemory(json.str(), "collected");
        QVERIFY(loaded.ok());
        const Trace& t = *loaded.trace;
        QCOMPARE(t.baseTimeNs(), kBase);
        QCOMPARE(t.slices().size(), original.slices().size());
        QCOMPARE(t.flows().size(), std::size_t(1));
        const SliceId k = slicesNamed(t, "busyKernel(float*, int)").at(0);
        QCOMPARE(t.slices().start[k], TimeNs(110000));
        QCOMPARE(t.gpuOpInfo(k)->grid[0], 264);
        QCOMPARE(t.gpuOpInfo(k)->estAchievedOccupancyPct,
                 original.gpuOpInfo(slicesNamed(original, "busyKernel(float*, int)").at(0))->estAchievedOccupancyPct);
        QCOMPARE(t.slices().correlation[k], std::int64_t(10));
        QCOMPARE(t.str(t.slices().category[launchOf(t, k)]), std::string_view("cuda_runtime"));
        const auto outer = slicesNamed(t, "outer"); // the NVTX range and its GPU projection
        QCOMPARE(outer.size(), std::size_t(2));
        QCOMPARE(t.classOf(outer[0]) == SliceClass::UserAnnotation || t.classOf(outer[1]) == SliceClass::UserAnnotation,
                 true);
        QCOMPARE(t.classOf(outer[0]) == SliceClass::GpuUserAnnotation
                     || t.classOf(outer[1]) == SliceClass::GpuUserAnnotation,
                 true);
        QCOMPARE(t.deviceProperties().size(), std::size_t(1));
        QCOMPARE(t.deviceProperties()[0].sharedMemPerBlockOptin, std::int64_t(232448));
        QVERIFY(t.processes().size() >= 2);
    }
};

QTEST_GUILESS_MAIN(TestProcessRecorder)
#include "tst_processrecorder.moc"
