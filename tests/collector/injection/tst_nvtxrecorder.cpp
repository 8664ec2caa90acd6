// The injection's own NVTX path (nvtx=own): the per-thread ring (records never wrap, a full
// ring drops and counts, nothing is lost or reordered across thousands of wrap-arounds), the
// recorder (push/pop nest per domain, start/end ranges may end on another thread, every thread
// its own ring, exited threads' rings freed once drained) and the translation into MARKER
// frames. Qt-free, on the fake CUPTI.
#include "fakeactivityapi.h"
#include "minitest.h"
#include "wireframes.h"

#include "collector/injection/nvtxrecorder.h"
#include "collector/injection/nvtxring.h"
#include "collector/injection/recordtranslator.h"

#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace ks;
using injection::NvtxRecord;
using injection::NvtxRecorder;
using injection::NvtxRing;

namespace {

struct Drained {
    NvtxRecord record;
    std::string text;
};

std::vector<Drained> drainAll(NvtxRing& ring)
{
    std::vector<Drained> out;
    ring.drain([&](const NvtxRecord& r, std::string_view text) { out.push_back({r, std::string(text)}); });
    return out;
}

std::vector<Drained> drainAll(NvtxRecorder& recorder)
{
    std::vector<Drained> out;
    recorder.drain([&](const NvtxRecord& r, std::string_view text) { out.push_back({r, std::string(text)}); });
    return out;
}

NvtxRecord record(std::uint32_t id)
{
    NvtxRecord r;
    r.time = 1000 + id;
    r.id = id;
    r.flags = NvtxRecord::Start;
    r.threadId = 77;
    return r;
}

} // namespace

KS_TEST(ringKeepsOrderAcrossWrapArounds)
{
    NvtxRing ring(1000); // rounded down to 1000 (a multiple of 8); a record is 40 bytes + text
    std::uint32_t written = 0, read = 0;
    for (int round = 0; round < 2000; ++round) {
        const int batch = 1 + round % 7;
        for (int i = 0; i < batch; ++i) {
            const std::string text(static_cast<std::size_t>((written * 13) % 61), char('a' + written % 26));
            KS_CHECK(ring.write(record(written), text));
            ++written;
        }
        for (const auto& d : drainAll(ring)) {
            KS_CHECK_EQ(d.record.id, read);
            KS_CHECK_EQ(d.record.time, std::int64_t(1000 + read));
            KS_CHECK_EQ(d.text, std::string(static_cast<std::size_t>((read * 13) % 61), char('a' + read % 26)));
            ++read;
        }
    }
    KS_CHECK_EQ(read, written);
    KS_CHECK_EQ(ring.dropped(), std::uint64_t(0));
}

KS_TEST(fullRingDropsAndCounts)
{
    NvtxRing ring(4096);
    std::uint32_t accepted = 0;
    for (std::uint32_t i = 0; i < 200; ++i)
        accepted += ring.write(record(i), "aten::addmm, op_id = 12345") ? 1 : 0;
    // 40-byte header + 26 text bytes, padded to 72: 4096 / 72 = 56 fit.
    KS_CHECK_EQ(accepted, 56u);
    KS_CHECK_EQ(ring.dropped(), std::uint64_t(200 - 56));
    const auto drained = drainAll(ring);
    KS_CHECK_EQ(drained.size(), std::size_t(56));
    KS_CHECK_EQ(drained.back().record.id, 55u); // the first ones are kept, later ones dropped
    KS_CHECK(ring.write(record(999), std::string(NvtxRing::kMaxText + 100, 'x')) == false); // > ring: dropped
    KS_CHECK(ring.write(record(1000), "after"));
    KS_CHECK_EQ(drainAll(ring).front().text, std::string("after"));
}

KS_TEST(pushPopNestPerDomain)
{
    testing::FakeActivityApi fake;
    NvtxRecorder recorder(fake, 1 << 16);
    int nccl = 0; // any address names a domain
    KS_CHECK_EQ(recorder.push(nullptr, "outer"), 0);
    KS_CHECK_EQ(recorder.push(&nccl, "ncclAllReduce"), 1);
    KS_CHECK_EQ(recorder.pop(nullptr), 0); // closes "outer", not the NCCL range pushed after it
    KS_CHECK_EQ(recorder.pop(&nccl), 0);
    KS_CHECK_EQ(recorder.pop(&nccl), -1);
    const auto drained = drainAll(recorder);
    KS_CHECK_EQ(drained.size(), std::size_t(4));
    KS_CHECK_EQ(drained[0].text, std::string("outer"));
    KS_CHECK_EQ(drained[2].record.id, drained[0].record.id);
    KS_CHECK_EQ(drained[2].record.flags, std::uint32_t(NvtxRecord::End));
    KS_CHECK_EQ(drained[3].record.id, drained[1].record.id);
    KS_CHECK(drained[1].record.domain == &nccl);
    KS_CHECK(drained[0].record.id != drained[1].record.id);
}

KS_TEST(threadsWriteTheirOwnRingsAndExitedOnesAreFreed)
{
    testing::FakeActivityApi fake;
    NvtxRecorder recorder(fake, 1 << 20);
    const std::uint32_t crossThread = recorder.startRange(nullptr, "load batch");
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&recorder, t] {
            for (int i = 0; i < 1000; ++i) {
                recorder.push(nullptr, "thread " + std::to_string(t));
                recorder.pop(nullptr);
            }
        });
    }
    for (auto& thread : threads)
        thread.join();
    std::thread([&] { recorder.endRange(crossThread); }).join(); // ends on another thread
    const auto drained = drainAll(recorder);
    KS_CHECK_EQ(drained.size(), std::size_t(4 * 2000 + 2));
    std::map<std::uint32_t, int> starts, ends;
    std::map<std::string, std::uint64_t> threadOfText;
    for (const auto& d : drained) {
        (d.record.flags == NvtxRecord::Start ? starts : ends)[d.record.id]++;
        if (d.record.flags == NvtxRecord::Start)
            threadOfText[d.text] = d.record.threadId;
    }
    KS_CHECK_EQ(starts.size(), std::size_t(4001));
    KS_CHECK(starts == ends); // every id opened once and closed once
    KS_CHECK_EQ(threadOfText.size(), std::size_t(5));
    KS_CHECK(threadOfText["thread 0"] != threadOfText["thread 1"]);
    KS_CHECK_EQ(recorder.dropped(), std::uint64_t(0));
    // The five exited threads' rings were drained above and are freed now: nothing comes twice.
    KS_CHECK(drainAll(recorder).empty());
}

KS_TEST(stoppedRecorderRecordsNothing)
{
    testing::FakeActivityApi fake;
    NvtxRecorder recorder(fake, 1 << 16);
    recorder.stop(); // a forked child, or detached
    KS_CHECK_EQ(recorder.push(nullptr, "x"), 0);
    KS_CHECK_EQ(recorder.pop(nullptr), -1);
    recorder.mark(nullptr, "y");
    KS_CHECK(drainAll(recorder).empty());
}

KS_TEST(translatorWritesMarkerFrames)
{
    testing::FakeActivityApi fake;
    injection::RecordTranslator translator(fake);
    const injection::NvtxDomain nccl{"NCCL"};
    std::vector<std::uint8_t> out;
    NvtxRecord start = record(5);
    start.domain = &nccl;
    translator.nvtx(start, "ncclAllReduce", out);
    translator.nvtx(start, "ncclAllGather", out);
    NvtxRecord end = record(5);
    end.flags = NvtxRecord::End;
    end.time = 2000;
    translator.nvtx(end, {}, out);
    const auto frames = testing::decodeAll(out);
    const auto markers = testing::recordsOf<wire::Marker>(frames);
    KS_CHECK_EQ(markers.size(), std::size_t(3));
    KS_CHECK_EQ(markers[0].id, 5u);
    KS_CHECK_EQ(markers[0].time, std::int64_t(1005));
    KS_CHECK_EQ(markers[0].threadId, std::uint64_t(77));
    KS_CHECK_EQ(markers[0].flags, std::uint32_t(wire::Marker::Start));
    KS_CHECK_EQ(testing::stringText(frames, markers[0].name), std::string("ncclAllReduce"));
    KS_CHECK_EQ(testing::stringText(frames, markers[1].name), std::string("ncclAllGather"));
    KS_CHECK_EQ(testing::stringText(frames, markers[0].domain), std::string("NCCL"));
    KS_CHECK_EQ(markers[1].domain, markers[0].domain); // the domain's name is defined once
    KS_CHECK_EQ(markers[2].name, 0u);
    KS_CHECK_EQ(markers[2].flags, std::uint32_t(wire::Marker::End));
    KS_CHECK_EQ(testing::recordsOf<wire::StringDef>(frames).size(), std::size_t(3));
    KS_CHECK_EQ(translator.records(), std::uint64_t(3));
}

KS_TEST_MAIN()
