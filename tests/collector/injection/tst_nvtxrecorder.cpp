// The injection's own NVTX path (nvtx=own): the per-thread ring (records never wrap, a full
// ring drops and counts, nothing is lost or reordered across thousands of wrap-arounds), the
// recorder (push/pop nest per domain, start/end ranges may end on another thread, every thread
// its own ring, exited threads' rings freed once drained) and the translation into MARKER
// frames. The PyTorch observer's operators: their binary payloads read back as emit_nvtx's very
// texts, names interned per thread by address and checked by text, a name lost to a full ring
// sent again. Qt-free, on the fake CUPTI.
#include "fakeactivityapi.h"
#include "wireframes.h"

#include "collector/injection/nvtxrecorder.h"
#include "collector/injection/nvtxring.h"
#include "collector/injection/recordtranslator.h"
#include "collector/injection/torchoppayload.h"

#include <QTest>

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

class TestNvtxRecorder : public QObject {
    Q_OBJECT
private slots:
    void ringKeepsOrderAcrossWrapArounds()
    {
        NvtxRing ring(1000); // rounded down to 1000 (a multiple of 8); a record is 40 bytes + text
        std::uint32_t written = 0, read = 0;
        for (int round = 0; round < 2000; ++round) {
            const int batch = 1 + round % 7;
            for (int i = 0; i < batch; ++i) {
                const std::string text(static_cast<std::size_t>((written * 13) % 61), char('a' + written % 26));
                QVERIFY(ring.write(record(written), text));
                ++written;
            }
            for (const auto& d : drainAll(ring)) {
                QCOMPARE(d.record.id, read);
                QCOMPARE(d.record.time, std::int64_t(1000 + read));
                QCOMPARE(d.text, std::string(static_cast<std::size_t>((read * 13) % 61), char('a' + read % 26)));
                ++read;
            }
        }
        QCOMPARE(read, written);
        QCOMPARE(ring.dropped(), std::uint64_t(0));
    }

    void fullRingDropsAndCounts()
    {
        NvtxRing ring(4096);
        std::uint32_t accepted = 0;
        for (std::uint32_t i = 0; i < 200; ++i)
            accepted += ring.write(record(i), "aten::addmm, op_id = 12345") ? 1 : 0;
        // 40-byte header + 26 text bytes, padded to 72: 4096 / 72 = 56 fit.
        QCOMPARE(accepted, 56u);
        QCOMPARE(ring.dropped(), std::uint64_t(200 - 56));
        const auto drained = drainAll(ring);
        QCOMPARE(drained.size(), std::size_t(56));
        QCOMPARE(drained.back().record.id, 55u); // the first ones are kept, later ones dropped
        QVERIFY(ring.write(record(999), std::string(NvtxRing::kMaxText + 100, 'x')) == false); // > ring: dropped
        QVERIFY(ring.write(record(1000), "after"));
        QCOMPARE(drainAll(ring).front().text, std::string("after"));
    }

    void pushPopNestPerDomain()
    {
        testing::FakeActivityApi fake;
        NvtxRecorder recorder(fake, 1 << 16);
        int nccl = 0; // any address names a domain
        QCOMPARE(recorder.push(nullptr, "outer"), 0);
        QCOMPARE(recorder.push(&nccl, "ncclAllReduce"), 1);
        QCOMPARE(recorder.pop(nullptr), 0); // closes "outer", not the NCCL range pushed after it
        QCOMPARE(recorder.pop(&nccl), 0);
        QCOMPARE(recorder.pop(&nccl), -1);
        const auto drained = drainAll(recorder);
        QCOMPARE(drained.size(), std::size_t(4));
        QCOMPARE(drained[0].text, std::string("outer"));
        QCOMPARE(drained[2].record.id, drained[0].record.id);
        QCOMPARE(drained[2].record.flags, std::uint32_t(NvtxRecord::End));
        QCOMPARE(drained[3].record.id, drained[1].record.id);
        QVERIFY(drained[1].record.domain == &nccl);
        QVERIFY(drained[0].record.id != drained[1].record.id);
    }

    void threadsWriteTheirOwnRingsAndExitedOnesAreFreed()
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
        QCOMPARE(drained.size(), std::size_t(4 * 2000 + 2));
        std::map<std::uint32_t, int> starts, ends;
        std::map<std::string, std::uint64_t> threadOfText;
        for (const auto& d : drained) {
            (d.record.flags == NvtxRecord::Start ? starts : ends)[d.record.id]++;
            if (d.record.flags == NvtxRecord::Start)
                threadOfText[d.text] = d.record.threadId;
        }
        QCOMPARE(starts.size(), std::size_t(4001));
        QVERIFY(starts == ends); // every id opened once and closed once
        QCOMPARE(threadOfText.size(), std::size_t(5));
        QVERIFY(threadOfText["thread 0"] != threadOfText["thread 1"]);
        QCOMPARE(recorder.dropped(), std::uint64_t(0));
        // The five exited threads' rings were drained above and are freed now: nothing comes twice.
        QVERIFY(drainAll(recorder).empty());
    }

    void stoppedRecorderRecordsNothing()
    {
        testing::FakeActivityApi fake;
        NvtxRecorder recorder(fake, 1 << 16);
        recorder.stop(); // a forked child, or detached
        QCOMPARE(recorder.push(nullptr, "x"), 0);
        QCOMPARE(recorder.pop(nullptr), -1);
        recorder.mark(nullptr, "y");
        QVERIFY(drainAll(recorder).empty());
    }

    void translatorWritesMarkerFrames()
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
        QCOMPARE(markers.size(), std::size_t(3));
        QCOMPARE(markers[0].id, 5u);
        QCOMPARE(markers[0].time, std::int64_t(1005));
        QCOMPARE(markers[0].threadId, std::uint64_t(77));
        QCOMPARE(markers[0].flags, std::uint32_t(wire::Marker::Start));
        QCOMPARE(testing::stringText(frames, markers[0].name), std::string("ncclAllReduce"));
        QCOMPARE(testing::stringText(frames, markers[1].name), std::string("ncclAllGather"));
        QCOMPARE(testing::stringText(frames, markers[0].domain), std::string("NCCL"));
        QCOMPARE(markers[1].domain, markers[0].domain); // the domain's name is defined once
        QCOMPARE(markers[2].name, 0u);
        QCOMPARE(markers[2].flags, std::uint32_t(wire::Marker::End));
        QCOMPARE(testing::recordsOf<wire::StringDef>(frames).size(), std::size_t(3));
        QCOMPARE(translator.records(), std::uint64_t(3));
    }

    // As torch's getNvtxStr writes them (torch/csrc/profiler/util.cpp): ", seq = " only for a
    // sequence number >= 0, ", op_id = " only for a handle > 0, ", sizes = " only with shapes,
    // one list per input (empty for a non-tensor).
    void torchOpPayloadsReadBackAsEmitNvtxTexts()
    {
        injection::TorchOpTexts texts;
        const injection::TorchOpName inlineName; // id 0: the text travels every time
        QCOMPARE(textOf(texts, torchOp("aten::empty", -1, 0), inlineName), std::string("aten::empty"));
        QCOMPARE(textOf(texts, torchOp("aten::mm", 0, 8), inlineName), std::string("aten::mm, seq = 0, op_id = 8"));
        QCOMPARE(textOf(texts, torchOp("my_label", -1, 17), inlineName), std::string("my_label, op_id = 17"));
        KinetoscopeTorchOp cat = torchOp("aten::cat", 2, 19);
        const std::uint32_t ranks[] = {2, 2, 0, 4};
        const std::int64_t dims[] = {8, 16, 8, 16, 1, 3, 224, 224};
        cat.shapeCount = 4;
        cat.ranks = ranks;
        cat.dims = dims;
        cat.dimCount = 8;
        QCOMPARE(textOf(texts, cat, inlineName),
                 std::string("aten::cat, seq = 2, op_id = 19, sizes = [[8, 16], [8, 16], [], [1, 3, 224, 224]]"));
        cat.dimCount = 7; // ranks and sizes disagree: not a payload of ours
        std::vector<std::uint8_t> payload;
        QVERIFY(injection::encodeTorchOp(cat, inlineName, payload));
        QVERIFY(texts.text(std::string_view(reinterpret_cast<const char*>(payload.data()), payload.size())).empty());
        QVERIFY(texts.text("short").empty());

        // Interned: the first record defines id 5, later ones carry the id alone.
        QCOMPARE(textOf(texts, torchOp("aten::addmm", 4, 20), {5, true}),
                 std::string("aten::addmm, seq = 4, op_id = 20"));
        QCOMPARE(textOf(texts, torchOp("ignored", 4, 21), {5, false}), std::string("aten::addmm, seq = 4, op_id = 21"));
        QVERIFY(textOf(texts, torchOp("aten::relu", 1, 22), {6, false}).empty()); // id 6 never defined
    }

    void torchOpNamesAreInternedByAddressAndCheckedByText()
    {
        testing::FakeActivityApi fake;
        NvtxRecorder recorder(fake, 1 << 16);
        injection::TorchOpTexts texts;
        static const char* const kMm = "aten::mm";
        char reused[32] = "LinearBackward0"; // a RecordFunction's own name buffer, reused for the next node
        for (int i = 0; i < 3; ++i) {
            QVERIFY(recorder.beginTorchOp(torchOp(kMm, i, 100 + static_cast<std::uint64_t>(i))));
            recorder.endTorchOp();
        }
        QVERIFY(recorder.beginTorchOp(torchOp(reused, 3, 200)));
        recorder.endTorchOp();
        std::snprintf(reused, sizeof reused, "ReluBackward0");
        QVERIFY(recorder.beginTorchOp(torchOp(reused, 4, 201)));
        recorder.endTorchOp();
        std::snprintf(reused, sizeof reused, "LinearBackward0");
        QVERIFY(recorder.beginTorchOp(torchOp(reused, 5, 202)));
        recorder.endTorchOp();
        std::vector<std::size_t> payloadBytes;
        const auto drained = drainTexts(recorder, texts, &payloadBytes);
        std::vector<std::string> starts;
        for (const auto& d : drained) {
            if (d.record.flags & NvtxRecord::Start) {
                QVERIFY(d.record.flags & NvtxRecord::TorchOp);
                QVERIFY(d.record.domain == nullptr); // emit_nvtx's ranges were in the default domain
                starts.push_back(d.text);
            } else {
                QCOMPARE(d.record.flags, std::uint32_t(NvtxRecord::End));
            }
        }
        QCOMPARE(starts.size(), std::size_t(6));
        QCOMPARE(starts[0], std::string("aten::mm, seq = 0, op_id = 100"));
        QCOMPARE(starts[2], std::string("aten::mm, seq = 2, op_id = 102"));
        QCOMPARE(starts[3], std::string("LinearBackward0, seq = 3, op_id = 200"));
        QCOMPARE(starts[4], std::string("ReluBackward0, seq = 4, op_id = 201"));
        QCOMPARE(starts[5], std::string("LinearBackward0, seq = 5, op_id = 202"));
        // The name's text travels with its first record on this thread only.
        QCOMPARE(payloadBytes[0], payloadBytes[1] + std::strlen(kMm));
        QCOMPARE(payloadBytes[1], payloadBytes[2]);
        QVERIFY(payloadBytes[4] > payloadBytes[1]); // a new name at a known address: sent
        QCOMPARE(payloadBytes[5], payloadBytes[1]); // a known name at that address again: by id
    }

    void torchOpNameLostToAFullRingIsSentAgain()
    {
        testing::FakeActivityApi fake;
        NvtxRecorder recorder(fake, 4096);
        injection::TorchOpTexts texts;
        while (recorder.push(nullptr, std::string(200, 'x')) >= 0 && recorder.dropped() == 0) { }
        QVERIFY(recorder.beginTorchOp(torchOp("aten::addmm", 1, 1))); // its name's first record: dropped
        recorder.endTorchOp();
        QVERIFY(recorder.dropped() >= 2);
        drainTexts(recorder, texts);
        QVERIFY(recorder.beginTorchOp(torchOp("aten::addmm", 2, 2)));
        recorder.endTorchOp();
        const auto drained = drainTexts(recorder, texts);
        QCOMPARE(drained.size(), std::size_t(2));
        QCOMPARE(drained[0].text, std::string("aten::addmm, seq = 2, op_id = 2"));
    }
};

QTEST_APPLESS_MAIN(TestNvtxRecorder)
#include "tst_nvtxrecorder.moc"
