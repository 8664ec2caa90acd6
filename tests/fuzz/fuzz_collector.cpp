// The collector's host side on any byte stream, as a traced process could send it: frame
// reassembly (lengths, types), HELLO, record payloads (string tables, ids), then the trace
// built from what was recorded, with valid UTF-8 texts like a loaded one; and a live view's
// snapshot after each delivery, the last of which must be the trace built from scratch; and a
// live view with a window of a few slices (the first byte picks it) after every record, whose
// windows slide over the records, and which without its window is the trace built from scratch.
#include "tests/fuzz/fuzzsupport.h"

#include "collector/host/collectedtrace.h"
#include "collector/host/processrecorder.h"
#include "collector/protocol/framedecoder.h"
#include "collector/protocol/framing.h"

#include <cstdint>
#include <memory>
#include <vector>

using namespace ks;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    // The first byte splits the rest, the stream, into two deliveries, as a socket may.
    if (size == 0)
        return 0;
    const std::size_t split = 1 + data[0] % size;
    wire::FrameDecoder decoder;
    auto arena = std::make_shared<collector::TextArena>();
    std::unique_ptr<collector::ProcessRecorder> recorder;
    const auto namer = [](std::int64_t, std::int64_t tid) { return "thread " + std::to_string(tid); };
    collector::TraceBuildOptions options;
    options.arena = arena;
    std::vector<collector::RecordedProcess> live(1);
    collector::LiveTraceBuilder liveBuilder;
    const auto liveSnapshot = [&] {
        live.front().catchUp(recorder->data());
        return liveBuilder.build(live, options);
    };
    std::vector<collector::RecordedProcess> windowedCopy(1);
    collector::LiveTraceBuilder windowed;
    windowed.setWindow(2 + data[0] % 13);
    const auto windowedSnapshot = [&] {
        windowedCopy.front().catchUp(recorder->data());
        Trace snapshot = windowed.build(windowedCopy, options);
        if (windowed.slicesShown() > windowed.slicesRecorded() || snapshot.slices().size() < windowed.slicesShown())
            __builtin_trap();
        fuzz::checkTextsAreValid(snapshot);
        return snapshot;
    };
    for (const auto& [from, to] : {std::pair{std::size_t(1), split}, std::pair{split, size}}) {
        decoder.append(data + from, to - from);
        wire::Frame frame;
        while (decoder.next(frame) == wire::FrameDecoder::Status::Frame) {
            if (recorder) {
                recorder->handle(frame);
                windowedSnapshot();
                continue;
            }
            wire::Hello hello; // the server's checks, but the token
            if (frame.type != wire::RecordType::Hello || !wire::decodePayload(frame.payload, hello)
                || hello.magic != wire::kMagic || hello.version != wire::kProtocolVersion)
                return 0;
            recorder = std::make_unique<collector::ProcessRecorder>(std::move(hello), 0, arena, namer);
        }
        if (recorder)
            liveSnapshot();
    }
    if (!recorder)
        return 0;
    recorder->connectionClosed(false);
    const Trace trace = collector::buildCollectedTrace({recorder->data()}, options);
    fuzz::checkTextsAreValid(trace);
    const auto differs = [&](const Trace& snapshot) {
        return snapshot.slices().start != trace.slices().start
            || snapshot.slices().externalId != trace.slices().externalId || snapshot.slices().row != trace.slices().row
            || snapshot.flows().size() != trace.flows().size();
    };
    windowedSnapshot();
    windowed.setWindow(0);
    if (differs(liveSnapshot()) || differs(windowedSnapshot()))
        __builtin_trap();
    return 0;
}
