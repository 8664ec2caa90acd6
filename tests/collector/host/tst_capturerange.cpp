// Capture ranges (--capture-range, --delay/--duration, the GUI's Pause) on synthesized
// record streams: only what lies inside the windows is kept, GPU work follows the call that
// launched it even when it ran after cudaProfilerStop, flows keep their ends, and a range
// that never opens leaves an empty trace.
#include "collector/host/capturerange.h"
#include "collector/host/collectorsession.h"
#include "recordstream.h"

#include <QTest>

#include <thread>

using namespace ks;
using namespace ks::collector;
using namespace ks::collector::test;

namespace {

std::size_t countClass(const Trace& t, SliceClass cls)
{
    std::size_t n = 0;
    for (SliceId s = 0; s < t.slices().size(); ++s)
        n += t.classOf(s) == cls;
    return n;
}

std::vector<TimeNs> kernelStartsUs(const Trace& t)
{
    std::vector<TimeNs> starts;
    for (SliceId s = 0; s < t.slices().size(); ++s) {
        if (t.classOf(s) == SliceClass::Kernel)
            starts.push_back(t.slices().start[s] / 1000);
    }
    std::sort(starts.begin(), starts.end());
    return starts;
}

Trace captured(Stream& s, const CaptureSpec& spec, CaptureOutcome* outcomeOut = nullptr)
{
    std::vector<RecordedProcess> processes{s.recorder().data()};
    const CaptureOutcome outcome = applyCapture(processes, spec);
    if (outcomeOut)
        *outcomeOut = outcome;
    return buildCollectedTrace(processes, {kBase, s.arena(), {}});
}

CaptureSpec spec(const char* text)
{
    std::string error;
    const auto parsed = parseCaptureRange(text, error);
    return parsed ? *parsed : CaptureSpec();
}

// Launches (runtime calls 1.., each with a kernel 20 µs later) every 100 µs from 100 µs.
void launches(Stream& s, std::uint32_t firstCorrelation, int count, std::int64_t fromUs)
{
    for (int i = 0; i < count; ++i) {
        const auto correlation = firstCorrelation + static_cast<std::uint32_t>(i);
        s.api(correlation, fromUs + 100 * i, 5);
        s.kernel(correlation, fromUs + 100 * i + 20, 10);
    }
}

} // namespace

class TestCaptureRange : public QObject {
    Q_OBJECT
private slots:
    void parsesTheRangeOption_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<int>("range");
        QTest::addColumn<std::string>("name");
        QTest::newRow("profiler api") << std::string("cudaProfilerApi") << true << int(CaptureRange::CudaProfilerApi)
                                      << std::string();
        QTest::newRow("nvtx") << std::string("nvtx:train step") << true << int(CaptureRange::Nvtx)
                              << std::string("train step");
        QTest::newRow("none") << std::string("none") << true << int(CaptureRange::Everything) << std::string();
        QTest::newRow("nvtx without name") << std::string("nvtx:") << false << 0 << std::string();
        QTest::newRow("unknown") << std::string("cudaProfiler") << false << 0 << std::string();
    }

    void parsesTheRangeOption()
    {
        QFETCH(std::string, text);
        QFETCH(bool, valid);
        QFETCH(int, range);
        QFETCH(std::string, name);
        std::string error;
        const auto parsed = parseCaptureRange(text, error);
        QCOMPARE(parsed.has_value(), valid);
        QCOMPARE(error.empty(), valid);
        if (!valid)
            return;
        QCOMPARE(int(parsed->range), range);
        QCOMPARE(parsed->nvtxName, name);
        QCOMPARE(captureRangeText(*parsed), text);
    }

    // cudaProfilerStart at 300 µs, cudaProfilerStop (with the driver's cuProfilerStop inside it)
    // at 550 µs. Launches at 100..900 µs; the kernel launched at 500 µs arrives last and runs
    // after the stop: it is kept, the kernel running at 620 µs launched before the start is not.
    void cudaProfilerApiKeepsWhatIsInside()
    {
        Stream s;
        s.send(h200());
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z4gemmPfi");
        s.string(3, "cudaProfilerStart_v4000");
        s.string(4, "cudaProfilerStop_v4000");
        s.string(5, "cuProfilerStop");
        for (std::uint32_t c = 1; c <= 9; ++c) {
            if (c == 5)
                continue;
            s.api(c, 100 * c, 5);
            s.kernel(c, c == 2 ? 620 : 100 * c + 20, 10);
        }
        s.api(100, 300, 2, 3);
        s.api(101, 550, 8, 4);
        s.api(102, 551, 3, 5, 2);
        s.api(5, 500, 5);
        s.kernel(5, 700, 10);
        CaptureOutcome outcome;
        const Trace t = captured(s, spec("cudaProfilerApi"), &outcome);
        QCOMPARE(outcome.windows, std::size_t(1));
        QCOMPARE(outcome.processesWithWindows, 1);
        // Kernels of the launches at 300 (none: correlation 3 launched at 300 µs), 400, 500.
        QCOMPARE(kernelStartsUs(t), (std::vector<TimeNs>{320, 420, 700}));
        QCOMPARE(countClass(t, SliceClass::Kernel), std::size_t(3));
        // Launches at 300, 400, 500 and the start and stop calls (runtime and driver).
        QCOMPARE(countClass(t, SliceClass::CudaRuntime) + countClass(t, SliceClass::CudaDriver), std::size_t(6));
        QCOMPARE(t.flows().size(), std::size_t(3)); // each kept launch keeps its arrow
        QCOMPARE(outcome.keptSlices, std::size_t(9));
        QCOMPARE(outcome.droppedSlices, std::size_t(12));
    }

    // Start without a stop: everything from the start on.
    void unmatchedStartRunsToTheEnd()
    {
        Stream s;
        s.send(h200());
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z4gemmPfi");
        s.string(3, "cudaProfilerStart_v4000");
        launches(s, 1, 5, 100);
        s.api(50, 250, 2, 3);
        QCOMPARE(kernelStartsUs(captured(s, spec("cudaProfilerApi"))), (std::vector<TimeNs>{320, 420, 520}));
    }

    void neverStartedLeavesNoEvents()
    {
        Stream s;
        s.send(h200());
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z4gemmPfi");
        launches(s, 1, 4, 100);
        CaptureOutcome outcome;
        const Trace t = captured(s, spec("cudaProfilerApi"), &outcome);
        QCOMPARE(outcome.processesWithWindows, 0);
        QCOMPARE(outcome.droppedSlices, std::size_t(8));
        QCOMPARE(t.slices().size(), std::size_t(0));
    }

    // nvtx:step keeps the two "step" ranges (on two threads), not "eval", and the record_function
    // label form of the same name; launches outside both are dropped.
    void nvtxRangeKeepsWhatIsInside()
    {
        Stream s;
        s.send(h200());
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z4gemmPfi");
        s.string(11, "step");
        s.string(12, "eval");
        s.string(13, "step, op_id = 9");
        using M = wire::Marker;
        s.marker(1, M::Start, 150, 11);
        s.marker(1, M::End, 260);
        s.marker(2, M::Start, 350, 12);
        s.marker(2, M::End, 460);
        s.setThread(kTid + 1);
        s.marker(3, M::Start, 550, 13);
        s.marker(3, M::End, 660);
        s.setThread(kTid);
        launches(s, 1, 7, 100); // at 100, 200, ... 700
        CaptureOutcome outcome;
        const Trace t = captured(s, spec("nvtx:step"), &outcome);
        QCOMPARE(outcome.windows, std::size_t(2));
        QCOMPARE(kernelStartsUs(t), (std::vector<TimeNs>{220, 620}));
        QCOMPARE(countClass(t, SliceClass::CudaRuntime), std::size_t(2));
    }

    // --delay/--duration make one time window; the paused intervals are cut out of it.
    void timeWindowAndPauses()
    {
        Stream s;
        s.send(h200());
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z4gemmPfi");
        launches(s, 1, 9, 100); // at 100 .. 900 µs
        CaptureSpec window;
        window.time = {250000, 850000};
        window.paused = {{450000, 650000}};
        QCOMPARE(kernelStartsUs(captured(s, window)), (std::vector<TimeNs>{320, 420, 720, 820}));
        // A pause without an end (still paused) drops everything after its start.
        CaptureSpec open;
        open.paused = {{550000, TimeWindow().end}};
        QCOMPARE(kernelStartsUs(captured(s, open)), (std::vector<TimeNs>{120, 220, 320, 420, 520}));
        QVERIFY(!CaptureSpec().filters());
    }

    // The session's Pause/Resume records the paused interval on its clock; a snapshot of the
    // processes drops what was recorded in it.
    void sessionPauseDropsRecords()
    {
        CollectorSession session;
        QVERIFY(!session.paused());
        session.setPaused(true);
        QVERIFY(session.paused());
        QCOMPARE(session.captureSpec().paused.size(), std::size_t(1)); // open: to the end
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        session.setPaused(false);
        const CaptureSpec spec = session.captureSpec();
        QCOMPARE(spec.paused.size(), std::size_t(1));
        const TimeWindow pause = spec.paused.front();
        QVERIFY(pause.end - pause.start >= 5000000);

        // A stream recorded in the session's time: launches before, during and after the pause.
        Stream s;
        s.send(h200());
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z4gemmPfi");
        const std::int64_t pausedUs = pause.start / 1000;
        s.api(1, pausedUs - 100, 5);
        s.kernel(1, pausedUs - 80, 10);
        s.api(2, pausedUs + 100, 5);
        s.kernel(2, pausedUs + 120, 10);
        s.api(3, pause.end / 1000 + 100, 5);
        s.kernel(3, pause.end / 1000 + 120, 10);
        std::vector<RecordedProcess> processes{s.recorder().data()};
        const CaptureOutcome outcome = session.applyCapture(processes);
        QCOMPARE(outcome.droppedSlices, std::size_t(2));
        const Trace t = buildCollectedTrace(processes, {kBase, s.arena(), {}});
        QCOMPARE(kernelStartsUs(t), (std::vector<TimeNs>{pausedUs - 80, pause.end / 1000 + 120}));
    }
};

QTEST_GUILESS_MAIN(TestCaptureRange)
#include "tst_capturerange.moc"
