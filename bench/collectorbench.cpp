// Injection side first: the sender thread's translation of CUPTI records into frames, in ns per
// record (through the fake CUPTI's decoder: the real one walks CUPTI's buffer in place), and the
// NVTX path of nvtx=own: a push/pop pair on the application's thread (timestamp from the fake,
// a virtual call; CUPTI's own is a few tens of ns more) and its drain + translation; the PyTorch
// observer's path (ops=observer): an operator's begin+end on the program's thread (interned
// name, binary sizes) and, on ours, its drain, formatting into emit_nvtx's text and translation.
// Host side of the collector: how fast records are decoded and joined into events, and how
// many live snapshots per second the GUI's recording can take as the recording grows to a
// million events (it asks for one every 100 ms). The stream is replayed as the receiving
// thread reads it, with a live snapshot every 2 % of the records: only the new records copied
// into the view's own copy and added to its builder (LiveTraceBuilder). At every fifth of the
// stream the same trace is also built from scratch, from a copy of the whole recording and
// from the view's copy, as the earlier versions did. Then the same live snapshots of a
// training loop recorded with PyTorch operators. CPU seconds of all threads, since the
// machine may be shared. No GPU needed.
#include "bench/measure.h"
#include "collector/host/collectedtrace.h"
#include "collector/host/processrecorder.h"
#include "collector/host/torchoplinker.h"
#include "collector/injection/nvtxrecorder.h"
#include "collector/injection/recordtranslator.h"
#include "collector/injection/torchoppayload.h"
#include "core/writing/writer.h"
#include "fakeactivityapi.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

using namespace ks;
using namespace ks::collector;

namespace {

void injectionSide(int launches)
{
    testing::FakeActivityApi fake;
    testing::FakeBufferWriter buffer;
    for (int i = 0; i < launches; ++i) {
        wire::Api api;
        api.start = 1000 + std::int64_t(i) * 5000;
        api.end = api.start + 3000;
        api.domain = 1;
        api.cbid = 211;
        api.correlation = std::uint32_t(i + 1);
        api.threadId = 1234;
        buffer.add(testing::FakeKind::Api, api);
        injection::KernelActivity k;
        k.record.start = api.end + 2000;
        k.record.end = k.record.start + 1500;
        k.record.correlation = api.correlation;
        k.name = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_";
        buffer.add(testing::FakeKind::Kernel, k);
    }
    injection::RecordTranslator translator(fake);
    std::vector<std::uint8_t> frames;
    double start = bench::cpuSeconds();
    translator.translate(buffer.bytes().data(), buffer.bytes().size(), frames);
    const double translateNs = (bench::cpuSeconds() - start) * 1e9 / double(translator.records());
    std::printf("collector injection: %llu CUPTI records (API + kernel) translated at %.0f ns/record (%.1f MB of "
                "frames)\n",
                static_cast<unsigned long long>(translator.records()), translateNs, frames.size() / 1e6);

    // emit_nvtx's texts: an op id in every one, shapes in some.
    std::vector<std::string> texts;
    for (int i = 0; i < 1000; ++i)
        texts.push_back("aten::addmm, seq = " + std::to_string(i) + ", op_id = " + std::to_string(100000 + i)
                        + (i % 2 ? ", sizes = [[64], [32, 64], [64, 64], [], []]" : ""));
    injection::NvtxRecorder recorder(fake, 64u << 20);
    const int ranges = std::min(launches, 200000);
    std::size_t drained = 0;
    double pushPopNs = 0, drainNs = 0;
    for (int done = 0; done < ranges;) { // in rounds that fit the ring, as the sender drains it
        const int round = std::min(50000, ranges - done);
        start = bench::cpuSeconds();
        for (int i = 0; i < round; ++i) {
            recorder.push(nullptr, texts[std::size_t(i) % texts.size()]);
            recorder.pop(nullptr);
        }
        pushPopNs += (bench::cpuSeconds() - start) * 1e9;
        frames.clear();
        start = bench::cpuSeconds();
        drained += recorder.drain(
            [&](const injection::NvtxRecord& r, std::string_view text) { translator.nvtx(r, text, frames); });
        drainNs += (bench::cpuSeconds() - start) * 1e9;
        done += round;
    }
    std::printf("collector injection: NVTX (nvtx=own) push+pop %.0f ns per range on the program's thread; drain + "
                "translate %.0f ns per record on ours (%zu records, %llu dropped)\n",
                pushPopNs / ranges, drainNs / double(drained), drained,
                static_cast<unsigned long long>(recorder.dropped()));

    // The observer's operators: 20 names at stable addresses, sizes as aten::addmm's on every other.
    std::vector<std::string> names;
    for (int i = 0; i < 20; ++i)
        names.push_back("aten::op" + std::to_string(i));
    const std::uint32_t ranks[] = {1, 2, 2, 0, 0};
    const std::int64_t dims[] = {64, 32, 64, 64, 64};
    injection::NvtxRecorder ops(fake, 64u << 20);
    injection::TorchOpTexts opTexts;
    std::size_t opRecords = 0;
    double beginEndNs = 0, opDrainNs = 0;
    for (int done = 0; done < ranges;) {
        const int round = std::min(50000, ranges - done);
        start = bench::cpuSeconds();
        for (int i = 0; i < round; ++i) {
            KinetoscopeTorchOp op{};
            op.size = sizeof op;
            op.name = names[std::size_t(i) % names.size()].c_str();
            op.sequence = i;
            op.opId = std::uint64_t(done + i + 1);
            if (i % 2) {
                op.shapeCount = 5;
                op.ranks = ranks;
                op.dims = dims;
                op.dimCount = 5;
            }
            ops.beginTorchOp(op);
            ops.endTorchOp();
        }
        beginEndNs += (bench::cpuSeconds() - start) * 1e9;
        frames.clear();
        start = bench::cpuSeconds();
        opRecords += ops.drain([&](const injection::NvtxRecord& r, std::string_view payload) {
            if (!(r.flags & injection::NvtxRecord::TorchOp))
                return translator.nvtx(r, payload, frames);
            injection::NvtxRecord range = r;
            range.flags &= ~injection::NvtxRecord::TorchOp;
            translator.nvtx(range, opTexts.text(payload), frames);
        });
        opDrainNs += (bench::cpuSeconds() - start) * 1e9;
        done += round;
    }
    std::printf("collector injection: PyTorch observer (ops=observer) begin+end %.0f ns per operator on the program's "
                "thread; drain + format + translate %.0f ns per record on ours (%zu records, %llu dropped)\n",
                beginEndNs / ranges, opDrainNs / double(opRecords), opRecords,
                static_cast<unsigned long long>(ops.dropped()));
}

// A recording of a PyTorch training loop as the observer sends it, built directly: per step,
// forward ops (an outer op with a sequence number around an inner one around a launch, the
// inner op arriving first, as ops arrive when they end) and their kernels, then one backward op
// per forward op on the autograd thread, and a label range around the step (its GPU annotation
// spans the step's kernels). Live snapshots as the recording grows by 2 %, and what
// linking the operators (TorchOpLinker) costs of each, both in CPU ms.
RecordedProcess trainingLoopRecording(int launches)
{
    RecordedProcess p;
    p.hello.pid = 100;
    p.names = {"", "aten::linear", "aten::mm", "cudaLaunchKernel", "gemm_kernel", "LinearBackward0", "ProfilerStep#"};
    constexpr int kForwardOpsPerStep = 1000;
    TimeNs t = 0;
    std::int64_t correlation = 1, external = 1, sequence = 0;
    const auto slice = [&](TimeNs start, TimeNs duration, std::uint32_t name, EventCategory category) {
        RecordedSlice s;
        s.pid = category == EventCategory::Kernel ? 0 : 100;
        s.tid = category == EventCategory::Kernel ? 7 : 1;
        s.start = start;
        s.duration = duration;
        s.name = name;
        s.category = category;
        return s;
    };
    const auto op = [&](RecordedSlice s, std::int64_t seq, bool backward) {
        s.op = int(p.ops.size());
        p.ops.push_back({external++, seq, backward});
        p.slices.push_back(s);
    };
    for (int launched = 0; launched < launches;) {
        const TimeNs stepStart = t;
        for (int i = 0; i < kForwardOpsPerStep; ++i, ++launched, t += 1000) {
            RecordedSlice call = slice(t + 150, 300, 3, EventCategory::Runtime);
            call.correlation = correlation++;
            p.slices.push_back(call);
            RecordedSlice kernel = slice(t + 2000, 5000, 4, EventCategory::Kernel);
            kernel.correlation = call.correlation;
            kernel.gpuOp = int(p.gpuOps.size());
            p.gpuOps.emplace_back();
            p.slices.push_back(kernel);
            op(slice(t + 100, 500, 2, EventCategory::CpuOp), -1, false);
            op(slice(t, 800, 1, EventCategory::CpuOp), sequence++, false);
        }
        for (int i = 0; i < kForwardOpsPerStep; ++i, t += 700) {
            RecordedSlice backward = slice(t, 600, 5, EventCategory::CpuOp);
            backward.tid = 2;
            op(backward, sequence - kForwardOpsPerStep + i, true);
        }
        op(slice(stepStart, t - stepStart, 6, EventCategory::Annotation), -1, false); // the step's label
    }
    return p;
}

void operatorSnapshots(int launches)
{
    const RecordedProcess whole = trainingLoopRecording(launches);
    std::vector<RecordedProcess> live(1);
    live.front().hello = whole.hello;
    live.front().names = whole.names;
    live.front().gpuOps = whole.gpuOps;
    live.front().ops = whole.ops;
    LiveTraceBuilder builder;
    LiveTraceBuilder windowed; // the GUI's default: the most recent slices only
    windowed.setWindow(LiveTraceBuilder::kDefaultWindowSlices);
    TorchOpLinker linker; // the same linking on its own, to tell its share (with the index it shares)
    RecordIndex index;
    const auto arena = std::make_shared<TextArena>();
    const TraceBuildOptions options{0, arena, {}};
    double snapshotMs = 0, linkMs = 0, windowedMs = 0;
    std::size_t windowedSlices = 0;
    int late = 0;
    constexpr int kSnapshots = 50;
    for (int k = 1; k <= kSnapshots; ++k) {
        const auto upto = whole.slices.begin() + std::ptrdiff_t(whole.slices.size() * std::size_t(k) / kSnapshots);
        live.front().slices.assign(whole.slices.begin(), upto);
        double start = bench::cpuSeconds();
        const Trace trace = builder.build(live, options);
        const double ms = (bench::cpuSeconds() - start) * 1e3;
        start = bench::cpuSeconds();
        const Trace recent = windowed.build(live, options);
        const double windowMs = (bench::cpuSeconds() - start) * 1e3;
        start = bench::cpuSeconds();
        linker.update(live.front(), index);
        const double link = (bench::cpuSeconds() - start) * 1e3;
        if (k * 10 > kSnapshots * 9) {
            snapshotMs += ms;
            windowedMs += windowMs;
            windowedSlices += recent.slices().size();
            linkMs += link;
            ++late;
        }
    }
    double start = bench::cpuSeconds();
    const Trace trace = buildCollectedTrace(live, options);
    const double wholeMs = (bench::cpuSeconds() - start) * 1e3;
    std::printf("live recording with PyTorch operators at %zu events (%zu ops, %zu fwdbwd): %.1f ms CPU per snapshot "
                "= %.1f/s, of which linking operators %.1f ms (mean of the %d past 90 %%, each adding 2 %%); built "
                "from scratch %.0f ms\n",
                whole.slices.size(), whole.ops.size(), linker.forwardBackward().size(), snapshotMs / late,
                1e3 * late / snapshotMs, linkMs / late, late, wholeMs);
    std::printf("  the same snapshots in a window of %zu slices (the GUI's default; each taken right after the "
                "whole one): %.1f ms CPU per snapshot = %.1f/s, %zu slices shown on average\n",
                LiveTraceBuilder::kDefaultWindowSlices, windowedMs / late, 1e3 * late / windowedMs,
                windowedSlices / std::size_t(late));
}

} // namespace

int main(int argc, char** argv)
{
    const int launches = argc > 1 ? std::atoi(argv[1]) : 500000; // 1 M events
    injectionSide(launches);
    constexpr std::int64_t kBase = 1790857026000000000;

    // The stream the injection library would send for `launches` kernel launches.
    std::vector<std::uint8_t> stream;
    wire::Device device;
    device.numSms = 132;
    device.maxThreadsPerMultiprocessor = 2048;
    device.regsPerMultiprocessor = device.regsPerBlock = 65536;
    device.sharedMemPerMultiprocessor = 233472;
    device.computeMajor = 9;
    wire::appendFrame(stream, device);
    wire::appendFrame(stream, wire::StringDef{1, "cudaLaunchKernel_v7000"});
    wire::appendFrame(stream,
                      wire::StringDef{2,
                                      "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_"
                                      "6detail5ArrayIPcLi1EEEEEviT0_T1_"});
    for (int i = 0; i < launches; ++i) {
        wire::Api api;
        api.start = kBase + std::int64_t(i) * 5000;
        api.end = api.start + 3000;
        api.domain = 1;
        api.cbid = 211;
        api.name = 1;
        api.correlation = std::uint32_t(i + 1);
        api.threadId = 1234;
        wire::appendFrame(stream, api);
        wire::Kernel k;
        k.start = api.end + 2000;
        k.end = k.start + 1500;
        k.stream = 7;
        k.correlation = api.correlation;
        k.name = 2;
        k.grid[0] = 2048;
        k.block[0] = 128;
        k.grid[1] = k.grid[2] = k.block[1] = k.block[2] = 1;
        k.registersPerThread = 32;
        wire::appendFrame(stream, k);
    }

    auto arena = std::make_shared<TextArena>();
    wire::Hello hello;
    hello.pid = 1234;
    hello.executable = "/usr/bin/bench";
    ProcessRecorder recorder(hello, kBase, arena, [](std::int64_t, std::int64_t) { return std::string("main"); });
    wire::FrameDecoder decoder;
    constexpr std::size_t kRead = 64 * 1024; // what the receiving thread reads at a time
    const std::size_t recordsPerLive = std::max<std::size_t>(std::size_t(launches) * 2 / 50, 1);
    const std::size_t recordsPerWhole = recordsPerLive * 10;
    std::size_t records = 0, nextLive = recordsPerLive, nextWhole = recordsPerWhole;
    double decodeSeconds = 0;
    std::vector<RecordedProcess> live(1); // the view's own copy, kept between snapshots
    LiveTraceBuilder liveBuilder; // and its builder
    std::shared_ptr<const Trace> shown; // the GUI keeps the last snapshot while the next is built
    const TraceBuildOptions options{kBase, arena, {}};
    double liveMs = 0, lateLiveMs = 0, lateWallMs = 0; // the last snapshot; sums over those past 90 %
    int lateSnapshots = 0;
    const auto liveSnapshot = [&] {
        const double start = bench::cpuSeconds();
        const auto wallStart = bench::Clock::now();
        live.front().catchUp(recorder.data());
        shown = std::make_shared<const Trace>(liveBuilder.build(live, options));
        liveMs = (bench::cpuSeconds() - start) * 1e3;
        if (records * 10 >= std::size_t(launches) * 2 * 9) {
            lateLiveMs += liveMs;
            lateWallMs += bench::msSince(wallStart);
            ++lateSnapshots;
        }
    };
    double wholeCopyMs = 0, viewCopyMs = 0;
    const auto wholeBuilds = [&] {
        double start = bench::cpuSeconds();
        {
            const std::vector<RecordedProcess> copies{recorder.data()};
            const Trace whole = buildCollectedTrace(copies, options);
        }
        wholeCopyMs = (bench::cpuSeconds() - start) * 1e3;
        start = bench::cpuSeconds();
        {
            const Trace whole = buildCollectedTrace(live, options);
        }
        viewCopyMs = (bench::cpuSeconds() - start) * 1e3;
        std::printf("%8zu events: built from scratch %6.1f ms (whole copy), %6.1f ms (view's copy); live snapshot "
                    "%5.1f ms; %zu slices, %zu flows\n",
                    recorder.data().slices.size(), wholeCopyMs, viewCopyMs, liveMs, shown->slices().size(),
                    shown->flows().size());
    };
    for (std::size_t at = 0; at < stream.size(); at += kRead) {
        const double start = bench::cpuSeconds();
        decoder.append(stream.data() + at, std::min(kRead, stream.size() - at));
        wire::Frame frame;
        while (decoder.next(frame) == wire::FrameDecoder::Status::Frame) {
            recorder.handle(frame);
            ++records;
        }
        decodeSeconds += bench::cpuSeconds() - start;
        if (records >= nextLive) {
            liveSnapshot();
            nextLive += recordsPerLive;
        }
        if (records >= nextWhole) {
            wholeBuilds();
            nextWhole += recordsPerWhole;
        }
    }
    if (live.front().slices.size() != recorder.data().slices.size())
        liveSnapshot();
    wholeBuilds();
    // What `collect` does once the program has exited: the trace built from the recording and
    // written as plain JSON (gzip costs more; collect writes .gz by default).
    {
        const Trace trace = buildCollectedTrace({recorder.data()}, options);
        const auto path = std::filesystem::temp_directory_path() / "bench_collector.pt.trace.json";
        const double start = bench::cpuSeconds();
        TraceWriteOptions writeOptions;
        writeOptions.strictText = true; // as collect writes it
        const auto written = writeTraceFile(trace, path.string(), writeOptions);
        const double seconds = bench::cpuSeconds() - start;
        std::printf("collector host: trace written in %.0f ms CPU = %.0f ns/event (%llu events, %.1f MB, plain JSON)\n",
                    seconds * 1e3, seconds * 1e9 / double(std::max<std::uint64_t>(written.eventsWritten, 1)),
                    static_cast<unsigned long long>(written.eventsWritten),
                    std::filesystem::exists(path) ? std::filesystem::file_size(path) / 1e6 : 0.0);
        std::filesystem::remove(path);
    }
    std::printf("collector host: %zu records (%.1f MB on the wire) decoded and joined in %.3f s CPU = %.2f M "
                "records/s = %.0f ns/record\n",
                records, stream.size() / 1e6, decodeSeconds, records / decodeSeconds / 1e6,
                decodeSeconds * 1e9 / double(records));
    std::printf("collector host: event text %.1f MB (%.0f bytes/event)\n", arena->bytes() / 1e6,
                double(arena->bytes()) / double(recorder.data().slices.size()));
    const double lateMs = lateSnapshots ? lateLiveMs / lateSnapshots : liveMs;
    const double lateWall = lateSnapshots ? lateWallMs / lateSnapshots : 0;
    std::printf("live recording at %zu events: %.1f ms CPU per snapshot = %.1f snapshots/s (wall %.1f ms = %.1f/s; "
                "mean of the %d taken past 90 %%, each adding 2 %% of the records); built from scratch: %.0f ms = "
                "%.1f/s from the view's copy, %.0f ms = %.1f/s from a whole copy (the GUI asks for at most 10/s)\n",
                recorder.data().slices.size(), lateMs, 1e3 / lateMs, lateWall, 1e3 / lateWall, lateSnapshots,
                viewCopyMs, 1e3 / viewCopyMs, wholeCopyMs, 1e3 / wholeCopyMs);
    operatorSnapshots(launches * 2 / 5); // as many events as above
    return 0;
}
