// Host side of the collector: how fast records are decoded and joined into events, and
// how long a live snapshot of the whole recording takes to build (the GUI builds one every
// 150 ms while recording). Prints figures; no GPU needed.
#include "bench/measure.h"
#include "collector/host/collectedtrace.h"

#include <cstdio>
#include <cstdlib>

using namespace ks;
using namespace ks::collector;
using bench::Clock;
using bench::secondsSince;

int main(int argc, char** argv)
{
    const int launches = argc > 1 ? std::atoi(argv[1]) : 200000;
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
    wire::appendFrame(stream, wire::StringDef{2, "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_"});
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
    const auto decodeStart = Clock::now();
    wire::FrameDecoder decoder;
    constexpr std::size_t kRead = 64 * 1024; // what the receiving thread reads at a time
    std::size_t records = 0;
    for (std::size_t at = 0; at < stream.size(); at += kRead) {
        decoder.append(stream.data() + at, std::min(kRead, stream.size() - at));
        wire::Frame frame;
        while (decoder.next(frame) == wire::FrameDecoder::Status::Frame) {
            recorder.handle(frame);
            ++records;
        }
    }
    const double decodeSeconds = secondsSince(decodeStart);
    std::printf("collector host: %zu records (%.1f MB on the wire) decoded and joined in %.3f s = %.2f M records/s\n",
                records, stream.size() / 1e6, decodeSeconds, records / decodeSeconds / 1e6);
    std::printf("collector host: event text %.1f MB (%.0f bytes/event)\n", arena->bytes() / 1e6,
                double(arena->bytes()) / double(recorder.data().slices.size()));

    for (int run = 0; run < 3; ++run) {
        const auto copyStart = Clock::now();
        std::vector<RecordedProcess> processes{recorder.data()};
        const double copySeconds = secondsSince(copyStart);
        const auto buildStart = Clock::now();
        const Trace trace = buildCollectedTrace(processes, {kBase, arena});
        std::printf("snapshot of %zu slices, %zu flows: copy %.1f ms, build %.1f ms\n", trace.slices().size(),
                    trace.flows().size(), copySeconds * 1e3, secondsSince(buildStart) * 1e3);
    }
    return 0;
}
