// Host side of the collector: how fast records are decoded and joined into events, and how
// many live snapshots per second the GUI's recording can take as the recording grows to a
// million events (it asks for one every 100 ms). The stream is replayed as the receiving
// thread reads it, with a live snapshot every 2 % of the records: only the new records copied
// into the view's own copy and added to its builder (LiveTraceBuilder). At every fifth of the
// stream the same trace is also built from scratch, from a copy of the whole recording and
// from the view's copy, as the earlier versions did. CPU seconds of all threads, since the
// machine may be shared. No GPU needed.
#include "bench/measure.h"
#include "collector/host/collectedtrace.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace ks;
using namespace ks::collector;

int main(int argc, char** argv)
{
    const int launches = argc > 1 ? std::atoi(argv[1]) : 500000; // 1 M events
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
    const TraceBuildOptions options{kBase, arena};
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
    std::printf(
        "collector host: %zu records (%.1f MB on the wire) decoded and joined in %.3f s CPU = %.2f M records/s\n",
        records, stream.size() / 1e6, decodeSeconds, records / decodeSeconds / 1e6);
    std::printf("collector host: event text %.1f MB (%.0f bytes/event)\n", arena->bytes() / 1e6,
                double(arena->bytes()) / double(recorder.data().slices.size()));
    const double lateMs = lateSnapshots ? lateLiveMs / lateSnapshots : liveMs;
    const double lateWall = lateSnapshots ? lateWallMs / lateSnapshots : 0;
    std::printf("live recording at %zu events: %.1f ms CPU per snapshot = %.1f snapshots/s (wall %.1f ms = %.1f/s; "
                "mean of the %d taken past 90 %%, each adding 2 %% of the records); built from scratch: %.0f ms = "
                "%.1f/s from the view's copy, %.0f ms = %.1f/s from a whole copy (the GUI asks for at most 10/s)\n",
                recorder.data().slices.size(), lateMs, 1e3 / lateMs, lateWall, 1e3 / lateWall, lateSnapshots,
                viewCopyMs, 1e3 / viewCopyMs, wholeCopyMs, 1e3 / wholeCopyMs);
    return 0;
}
