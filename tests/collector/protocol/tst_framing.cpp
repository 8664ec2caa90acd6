// Record framing: round trips, streams split at every byte, many frames per read, garbage.
#include "collector/protocol/framedecoder.h"
#include "collector/protocol/framing.h"

#include <QTest>

using namespace ks::wire;

namespace {

std::vector<std::uint8_t> sampleStream()
{
    std::vector<std::uint8_t> bytes;
    Hello hello;
    hello.token = "0123456789abcdef0123456789abcdef";
    hello.pid = 4242;
    hello.ppid = 1;
    hello.executable = "/usr/bin/python3";
    hello.arguments = {"python3", "train.py", ""};
    hello.cuptiVersion = 130001;
    hello.clock.realtimeNs = 1790857026000000123;
    appendFrame(bytes, hello);
    appendFrame(bytes, StringDef{0, "_Z4busyPfi"});
    Kernel kernel;
    kernel.start = 1790857026000001000;
    kernel.end = kernel.start + 2500;
    kernel.correlation = 0xfffffff0u;
    kernel.grid[0] = 264;
    kernel.block[0] = 256;
    kernel.registersPerThread = 218;
    kernel.graphNodeId = 0x1234567890abcdefull;
    appendFrame(bytes, kernel);
    Api api;
    api.threadId = 0xffffffffffull;
    api.returnValue = -3;
    appendFrame(bytes, api);
    appendFrame(bytes, Goodbye{7, 2, 2});
    return bytes;
}

void checkSampleFrames(const std::vector<Frame>& frames)
{
    QCOMPARE(frames.size(), std::size_t(5));
    QCOMPARE(frames[0].type, RecordType::Hello);
    Hello hello;
    QVERIFY(decodePayload(frames[0].payload, hello));
    QCOMPARE(hello.magic, kMagic);
    QCOMPARE(hello.version, kProtocolVersion);
    QCOMPARE(hello.pid, std::int64_t(4242));
    QCOMPARE(hello.arguments.size(), std::size_t(3));
    QCOMPARE(hello.arguments[1], std::string("train.py"));
    QCOMPARE(hello.arguments[2], std::string());
    QCOMPARE(hello.clock.realtimeNs, std::int64_t(1790857026000000123));
    Kernel kernel;
    QCOMPARE(frames[2].type, RecordType::Kernel);
    QVERIFY(decodePayload(frames[2].payload, kernel));
    QCOMPARE(kernel.end - kernel.start, std::int64_t(2500));
    QCOMPARE(kernel.correlation, 0xfffffff0u);
    QCOMPARE(kernel.grid[0], 264);
    QCOMPARE(kernel.block[0], 256);
    QCOMPARE(kernel.registersPerThread, 218);
    QCOMPARE(kernel.graphNodeId, 0x1234567890abcdefull);
    Api api;
    QVERIFY(decodePayload(frames[3].payload, api));
    QCOMPARE(api.threadId, 0xffffffffffull);
    QCOMPARE(api.returnValue, -3);
    Goodbye goodbye;
    QVERIFY(decodePayload(frames[4].payload, goodbye));
    QCOMPARE(goodbye.records, std::uint64_t(7));
}

// Copies frames out (their payload spans die with the decoder's next append).
struct OwnedFrames {
    std::vector<std::vector<std::uint8_t>> payloads;
    std::vector<Frame> frames;
    void take(const Frame& f)
    {
        payloads.emplace_back(f.payload.begin(), f.payload.end());
        frames.push_back(f);
    }
    void fix()
    {
        for (std::size_t i = 0; i < frames.size(); ++i)
            frames[i].payload = payloads[i];
    }
};

} // namespace

class TestFraming : public QObject {
    Q_OBJECT
private slots:
    void headerIsLittleEndian()
    {
        std::vector<std::uint8_t> bytes;
        appendFrame(bytes, StringDef{0x01020304u, "ab"});
        // payload: u32 id + u32 length + 2 bytes = 10
        QCOMPARE(bytes.size(), kFrameHeaderBytes + 10);
        QCOMPARE(int(bytes[0]), 10);
        QCOMPARE(int(bytes[1]) | int(bytes[2]) | int(bytes[3]), 0);
        QCOMPARE(int(bytes[4]), int(RecordType::String));
        QCOMPARE(int(bytes[8]), 0x04);
        QCOMPARE(int(bytes[11]), 0x01);
    }

    void wholeStreamInOneRead()
    {
        const auto bytes = sampleStream();
        FrameDecoder decoder;
        decoder.append(bytes.data(), bytes.size());
        std::vector<Frame> frames;
        Frame f;
        while (decoder.next(f) == FrameDecoder::Status::Frame)
            frames.push_back(f);
        checkSampleFrames(frames);
        QCOMPARE(decoder.bufferedBytes(), std::size_t(0));
    }

    void splitAtEveryByte_data()
    {
        QTest::addColumn<int>("chunk");
        for (int chunk : {1, 2, 3, 7, 8, 9, 64})
            QTest::addRow("chunk %d", chunk) << chunk;
    }

    void splitAtEveryByte()
    {
        QFETCH(int, chunk);
        const auto bytes = sampleStream();
        FrameDecoder decoder;
        OwnedFrames owned;
        for (std::size_t at = 0; at < bytes.size(); at += std::size_t(chunk)) {
            decoder.append(bytes.data() + at, std::min<std::size_t>(std::size_t(chunk), bytes.size() - at));
            Frame f;
            FrameDecoder::Status status;
            while ((status = decoder.next(f)) == FrameDecoder::Status::Frame)
                owned.take(f);
            QCOMPARE(status, FrameDecoder::Status::NeedMore);
        }
        owned.fix();
        checkSampleFrames(owned.frames);
    }

    void hugeLengthIsCorrupt()
    {
        const std::uint8_t header[8] = {0xff, 0xff, 0xff, 0x7f, 1, 0, 0, 0};
        FrameDecoder decoder;
        decoder.append(header, sizeof header);
        Frame f;
        QCOMPARE(decoder.next(f), FrameDecoder::Status::Corrupt);
        QVERIFY(decoder.error().find("exceeds") != std::string::npos);
        // Corrupt is final, even if valid frames follow.
        std::vector<std::uint8_t> more;
        appendFrame(more, Goodbye{});
        decoder.append(more.data(), more.size());
        QCOMPARE(decoder.next(f), FrameDecoder::Status::Corrupt);
    }

    void garbageTextIsCorrupt()
    {
        const std::string garbage = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
        FrameDecoder decoder;
        decoder.append(garbage.data(), garbage.size());
        Frame f;
        QCOMPARE(decoder.next(f), FrameDecoder::Status::Corrupt);
    }

    void typeZeroIsCorrupt()
    {
        const std::uint8_t header[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        FrameDecoder decoder;
        decoder.append(header, sizeof header);
        Frame f;
        QCOMPARE(decoder.next(f), FrameDecoder::Status::Corrupt);
    }

    void shortPayloadFailsToDecode()
    {
        std::vector<std::uint8_t> bytes;
        appendFrame(bytes, Kernel{});
        const std::span<const std::uint8_t> payload(bytes.data() + kFrameHeaderBytes, bytes.size() - kFrameHeaderBytes);
        Kernel k;
        QVERIFY(decodePayload(payload, k));
        QVERIFY(!decodePayload(payload.first(payload.size() - 1), k));
    }

    void stringLengthBeyondPayloadFails()
    {
        std::vector<std::uint8_t> bytes;
        appendFrame(bytes, StringDef{1, "abc"});
        bytes[kFrameHeaderBytes + 4] = 0xff; // claimed length 255 > 3 bytes present
        StringDef s;
        QVERIFY(!decodePayload(std::span<const std::uint8_t>(bytes).subspan(kFrameHeaderBytes), s));
    }

    void hugeListCountFails()
    {
        std::vector<std::uint8_t> payload(8, 0);
        payload[0] = 0xff;
        payload[1] = 0xff;
        payload[2] = 0xff;
        payload[3] = 0x0f; // 268M strings announced in 4 remaining bytes
        std::vector<std::string> list;
        detail::FieldReader reader(payload);
        reader(list);
        QVERIFY(!reader.ok());
        QVERIFY(list.empty());
    }

    void trailingFieldsOfNewerSendersAreIgnored()
    {
        std::vector<std::uint8_t> bytes;
        appendFrame(bytes, Clock{{1, 2, 3}});
        std::vector<std::uint8_t> payload(bytes.begin() + kFrameHeaderBytes, bytes.end());
        payload.insert(payload.end(), {9, 9, 9, 9});
        Clock c;
        QVERIFY(decodePayload(payload, c));
        QCOMPARE(c.sample.cuptiNs, std::int64_t(3));
    }
};

QTEST_GUILESS_MAIN(TestFraming)
#include "tst_framing.moc"
