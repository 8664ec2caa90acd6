#pragma once
// Synthesized record streams for the collector's host-side tests: frames encoded and decoded
// as the wire carries them, handed to one ProcessRecorder; and lookups into the trace built.
#include "collector/host/collectedtrace.h"
#include "collector/host/processrecorder.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <random>
#include <string_view>
#include <vector>

namespace ks::collector::test {

constexpr std::int64_t kBase = 1790857026000000000;
constexpr std::int64_t kPid = 4242;
constexpr std::int64_t kTid = 4243;

// A recorded slice, for tests of what is derived from a recording (operator links, GPU
// annotations) that build one directly; a GPU op (gpuOp 0) on `tid` when `category` is Kernel.
inline RecordedSlice recordedSlice(EventCategory category, TimeNs start, TimeNs duration,
                                   std::int64_t correlation = kNoId, std::int64_t tid = 0)
{
    RecordedSlice s;
    s.category = category;
    s.start = start;
    s.duration = duration;
    s.correlation = correlation;
    s.tid = tid;
    if (category == EventCategory::Kernel)
        s.gpuOp = 0;
    return s;
}

// Feeds `all` to `process` in random chunks (one record to a quarter of them each), as a live
// view's snapshots see a recording, and calls `check` after each. At random the shared `index`
// is updated first, as the process's other derivation does when it runs before.
template <class Check>
void feedInRandomChunks(const std::vector<RecordedSlice>& all, std::mt19937_64& rng, RecordedProcess& process,
                        RecordIndex& index, Check check)
{
    while (process.slices.size() < all.size()) {
        const std::size_t take = std::min(all.size() - process.slices.size(), 1 + rng() % (all.size() / 4 + 1));
        process.slices.insert(process.slices.end(), all.begin() + std::ptrdiff_t(process.slices.size()),
                              all.begin() + std::ptrdiff_t(process.slices.size() + take));
        if (rng() % 2 == 0)
            index.update(process);
        check();
    }
}

// H200 as the fixtures' deviceProperties describe it.
inline wire::Device h200()
{
    wire::Device d;
    d.id = 0;
    d.name = "NVIDIA H200";
    d.totalGlobalMem = 150109880320;
    d.computeMajor = 9;
    d.numSms = 132;
    d.maxThreadsPerBlock = 1024;
    d.maxThreadsPerMultiprocessor = 2048;
    d.maxBlocksPerMultiprocessor = 32;
    d.maxWarpsPerMultiprocessor = 64;
    d.regsPerBlock = 65536;
    d.regsPerMultiprocessor = 65536;
    d.sharedMemPerBlock = 49152;
    d.sharedMemPerMultiprocessor = 233472;
    d.sharedMemPerBlockOptin = 232448;
    d.reservedSharedMemPerBlock = 1024;
    return d;
}

class Stream {
public:
    // Streams that share an arena can be merged into one trace, as a session's processes are.
    explicit Stream(std::int64_t pid = kPid, std::shared_ptr<TextArena> arena = std::make_shared<TextArena>())
        : m_arena(std::move(arena))
        , m_recorder(hello(pid), kBase, m_arena,
                     [](std::int64_t, std::int64_t tid) { return "thread " + std::to_string(tid); })
    {
    }

    template <class Record>
    void send(const Record& r)
    {
        std::vector<std::uint8_t> bytes;
        wire::appendFrame(bytes, r);
        wire::FrameDecoder decoder;
        decoder.append(bytes.data(), bytes.size());
        wire::Frame frame;
        QCOMPARE(decoder.next(frame), wire::FrameDecoder::Status::Frame);
        QVERIFY(m_recorder.handle(frame));
        if (afterEachRecord)
            afterEachRecord();
    }

    // Called after each record is handled (to look at every intermediate state).
    std::function<void()> afterEachRecord;

    void string(std::uint32_t id, std::string text) { send(wire::StringDef{id, std::move(text)}); }

    void api(std::uint32_t correlation, std::int64_t startUs, std::int64_t durUs, std::uint32_t nameId = 1,
             std::uint8_t domain = 1)
    {
        wire::Api a;
        a.start = kBase + startUs * 1000;
        a.end = a.start + durUs * 1000;
        a.domain = domain;
        a.cbid = 211;
        a.name = nameId;
        a.correlation = correlation;
        a.threadId = static_cast<std::uint64_t>(m_thread);
        send(a);
    }

    void kernel(std::uint32_t correlation, std::int64_t startUs, std::int64_t durUs, std::uint32_t stream = 7,
                std::uint32_t nameId = 2, std::uint32_t device = 0)
    {
        wire::Kernel k;
        k.device = device;
        k.start = kBase + startUs * 1000;
        k.end = k.start + durUs * 1000;
        k.stream = stream;
        k.correlation = correlation;
        k.name = nameId;
        k.grid[0] = 264;
        k.grid[1] = k.grid[2] = 1;
        k.block[0] = 256;
        k.block[1] = k.block[2] = 1;
        k.registersPerThread = 32;
        k.dynamicSharedMemory = 4096;
        send(k);
    }

    void marker(std::uint32_t id, std::uint32_t flags, std::int64_t atUs, std::uint32_t nameId = 0,
                std::uint32_t domain = 0)
    {
        wire::Marker m;
        m.time = kBase + atUs * 1000;
        m.id = id;
        m.flags = flags;
        m.name = nameId;
        m.domain = domain;
        m.threadId = static_cast<std::uint64_t>(m_thread);
        send(m);
    }

    // The CPU thread of the calls and markers that follow.
    void setThread(std::int64_t tid) { m_thread = tid; }
    ProcessRecorder& recorder() { return m_recorder; }
    Trace trace() const { return buildCollectedTrace({m_recorder.data()}, {kBase, m_arena, {}}); }
    std::shared_ptr<TextArena> arena() const { return m_arena; }

private:
    static wire::Hello hello(std::int64_t pid)
    {
        wire::Hello h;
        h.pid = pid;
        h.executable = "/usr/bin/shapes";
        h.cuptiVersion = 130001;
        return h;
    }
    std::shared_ptr<TextArena> m_arena;
    std::int64_t m_thread = kTid;
    ProcessRecorder m_recorder;
};

// The slices named `name`, in model order.
inline std::vector<SliceId> slicesNamed(const Trace& t, std::string_view name)
{
    std::vector<SliceId> out;
    for (SliceId s = 0; s < t.slices().size(); ++s) {
        if (t.str(t.slices().name[s]) == name)
            out.push_back(s);
    }
    return out;
}

// The "args" of a slice's event text, as written.
inline nlohmann::json argsOf(const Trace& t, SliceId s)
{
    return nlohmann::json::parse(t.eventText(s)).value("args", nlohmann::json::object());
}

} // namespace ks::collector::test
