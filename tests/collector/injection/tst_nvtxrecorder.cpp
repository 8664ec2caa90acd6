// The injection's own NVTX path (nvtx=own): the per-thread ring (records never wrap, a full
// ring drops and counts, nothing is lost or reordered across thousands of wrap-arounds), the
// recorder (push/pop nest per domain, start/end ranges may end on another thread, every thread
// its own ring, exited threads' rings freed once drained) and the translation into MARKER
// frames. The PyTorch observer's operators: their binary payloads read back as emit_nvtx's very
// texts, names interned per thread by address and checked by text, a name lost to a full ring
// sent again. Qt-free, on the fake CUPTI.
#include "fakeactivityapi.h"
#include "minitest.h"
#include "wireframes.h"

#include "collector/injection/nvtxrecorder.h"
#include "collector/injection/nvtxring.h"
#include "collector/injection/recordtranslator.h"
#include "collector/injection/torchoppayload.h"

#include <cstdio>
#include <cstring>
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

namespace {

KinetoscopeTorchOp torchOp(const char* name, std::int64_t sequence, std::uint64_t opId)
{
    KinetoscopeTorchOp op{};
    op.size = sizeof op;
    op.name = name;
    op.sequence = sequence;
    op.opId = opId;
    return op;
}

std::string textOf(injection::TorchOpTexts& texts, const KinetoscopeTorchOp& op, injection::TorchOpName name)
{
    std::vector<std::uint8_t> payload;
    if (!injection::encodeTorchOp(op, name, payload))
        return "(not encoded)";
    return std::string(texts.text(std::string_view(reinterpret_cast<const char*>(payload.data()), payload.size())));
}

// Every record the recorder wrote, as the sender thread turns them into MARKER texts.
std::vector<Drained> drainTexts(NvtxRecorder& recorder, injection::TorchOpTexts& texts,
                                std::vector<std::size_t>* payloadBytes = nullptr)
{
    std::vector<Drained> out;
    recorder.drain([&](const NvtxRecord& r, std::string_view text) {
        if (r.flags & NvtxRecord::TorchOp && payloadBytes)
            payloadBytes->push_back(text.size());
        out.push_back({r, std::string(r.flags & NvtxRecord::TorchOp ? texts.text(text) : text)});
    });
    return out;
}

} // namespace

// As torch's getNvtxStr writes them (torch/csrc/profiler/util.cpp): ", seq = " only for a
// sequence number >= 0, ", op_id = " only for a handle > 0, ", sizes = " only with shapes,
// one list per input (empty for a non-tensor).
KS_TEST(torchOpPayloadsReadBackAsEmitNvtxTexts)
{
    injection::TorchOpTexts texts;
    const injection::TorchOpName inlineName; // id 0: the text travels every time
    KS_CHECK_EQ(textOf(texts, torchOp("aten::empty", -1, 0), inlineName), std::string("aten::empty"));
    KS_CHECK_EQ(textOf(texts, torchOp("aten::mm", 0, 8), inlineName), std::string("aten::mm, seq = 0, op_id = 8"));
    KS_CHECK_EQ(textOf(texts, torchOp("my_label", -1, 17), inlineName), std::string("my_label, op_id = 17"));
    KinetoscopeTorchOp cat = torchOp("aten::cat", 2, 19);
    const std::uint32_t ranks[] = {2, 2, 0, 4};
    const std::int64_t dims[] = {8, 16, 8, 16, 1, 3, 224, 224};
    cat.shapeCount = 4;
    cat.ranks = ranks;
    cat.dims = dims;
    cat.dimCount = 8;
    KS_CHECK_EQ(textOf(texts, cat, inlineName),
                std::string("aten::cat, seq = 2, op_id = 19, sizes = [[8, 16], [8, 16], [], [1, 3, 224, 224]]"));
    cat.dimCount = 7; // ranks and sizes disagree: not a payload of ours
    std::vector<std::uint8_t> payload;
    KS_CHECK(injection::encodeTorchOp(cat, inlineName, payload));
    KS_CHECK(texts.text(std::string_view(reinterpret_cast<const char*>(payload.data()), payload.size())).empty());
    KS_CHECK(texts.text("short").empty());

    // Interned: the first record defines id 5, later ones carry the id alone.
    KS_CHECK_EQ(textOf(texts, torchOp("aten::addmm", 4, 20), {5, true}),
                std::string("aten::addmm, seq = 4, op_id = 20"));
    KS_CHECK_EQ(textOf(texts, torchOp("ignored", 4, 21), {5, false}), std::string("aten::addmm, seq = 4, op_id = 21"));
    KS_CHECK(textOf(texts, torchOp("aten::relu", 1, 22), {6, false}).empty()); // id 6 never defined
}

KS_TEST(torchOpNamesAreInternedByAddressAndCheckedByText)
{
    testing::FakeActivityApi fake;
    NvtxRecorder recorder(fake, 1 << 16);
    injection::TorchOpTexts texts;
    static const char* const kMm = "aten::mm";
    char reused[32] = "LinearBackward0"; // a RecordFunction's own name buffer, reused for the next node
    for (int i = 0; i < 3; ++i) {
        KS_CHECK(recorder.beginTorchOp(torchOp(kMm, i, 100 + static_cast<std::uint64_t>(i))));
        recorder.endTorchOp();
    }
    KS_CHECK(recorder.beginTorchOp(torchOp(reused, 3, 200)));
    recorder.endTorchOp();
    std::snprintf(reused, sizeof reused, "ReluBackward0");
    KS_CHECK(recorder.beginTorchOp(torchOp(reused, 4, 201)));
    recorder.endTorchOp();
    std::snprintf(reused, sizeof reused, "LinearBackward0");
    KS_CHECK(recorder.beginTorchOp(torchOp(reused, 5, 202)));
    recorder.endTorchOp();
    std::vector<std::size_t> payloadBytes;
    const auto drained = drainTexts(recorder, texts, &payloadBytes);
    std::vector<std::string> starts;
    for (const auto& d : drained) {
        if (d.record.flags & NvtxRecord::Start) {
            KS_CHECK(d.record.flags & NvtxRecord::TorchOp);
            KS_CHECK(d.record.domain == nullptr); // emit_nvtx's ranges were in the default domain
            starts.push_back(d.text);
        } else {
            KS_CHECK_EQ(d.record.flags, std::uint32_t(NvtxRecord::End));
        }
    }
    KS_CHECK_EQ(starts.size(), std::size_t(6));
    KS_CHECK_EQ(starts[0], std::string("aten::mm, seq = 0, op_id = 100"));
    KS_CHECK_EQ(starts[2], std::string("aten::mm, seq = 2, op_id = 102"));
    KS_CHECK_EQ(starts[3], std::string("LinearBackward0, seq = 3, op_id = 200"));
    KS_CHECK_EQ(starts[4], std::string("ReluBackward0, seq = 4, op_id = 201"));
    KS_CHECK_EQ(starts[5], std::string("LinearBackward0, seq = 5, op_id = 202"));
    // The name's text travels with its first record on this thread only.
    KS_CHECK_EQ(payloadBytes[0], payloadBytes[1] + std::strlen(kMm));
    KS_CHECK_EQ(payloadBytes[1], payloadBytes[2]);
    KS_CHECK(payloadBytes[4] > payloadBytes[1]); // a new name at a known address: sent
    KS_CHECK_EQ(payloadBytes[5], payloadBytes[1]); // a known name at that address again: by id
}

KS_TEST(torchOpNameLostToAFullRingIsSentAgain)
{
    testing::FakeActivityApi fake;
    NvtxRecorder recorder(fake, 4096);
    injection::TorchOpTexts texts;
    while (recorder.push(nullptr, std::string(200, 'x')) >= 0 && recorder.dropped() == 0) { }
    KS_CHECK(recorder.beginTorchOp(torchOp("aten::addmm", 1, 1))); // its name's first record: dropped
    recorder.endTorchOp();
    KS_CHECK(recorder.dropped() >= 2);
    drainTexts(recorder, texts);
    KS_CHECK(recorder.beginTorchOp(torchOp("aten::addmm", 2, 2)));
    recorder.endTorchOp();
    const auto drained = drainTexts(recorder, texts);
    KS_CHECK_EQ(drained.size(), std::size_t(2));
    KS_CHECK_EQ(drained[0].text, std::string("aten::addmm, seq = 2, op_id = 2"));
}

KS_TEST_MAIN()
