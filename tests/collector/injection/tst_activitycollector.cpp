// The code that runs inside users' processes, on a fake CUPTI (no GPU, no CUPTI headers):
// per-kind translation into wire frames, the buffer cap and drop accounting, takeover
// detection, a collector that goes away mid-stream, an exception on our flush thread and
// a fork in the middle of a flush. Qt-free: it builds with KINETOSCOPE_BUILD_GUI=OFF.
#include "fakeactivityapi.h"
#include "wireframes.h"

#include "collector/injection/activitycollector.h"
#include "collector/injection/recordtranslator.h"
#include "collector/injection/torchopsabi.h"
#include "collector/protocol/framing.h"

#include <QTest>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <pthread.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace ks;
using ks::injection::ActivityCollector;
using ks::injection::CollectorOptions;
using ks::testing::decodeAll;
using ks::testing::DecodedFrame;
using ks::testing::FakeActivityApi;
using ks::testing::FakeBufferWriter;
using ks::testing::FakeKind;
using ks::testing::recordsOf;
using ks::testing::stringText;

namespace {

// The collector's end of the socket: accepts one connection and reads it to EOF on a thread.
class FakeCollector {
public:
    FakeCollector()
    {
        char dir[] = "/tmp/ks-injection-XXXXXX";
        m_dir = mkdtemp(dir);
        path = m_dir + "/socket";
        m_listen = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
        ::bind(m_listen, reinterpret_cast<const sockaddr*>(&address), sizeof address);
        ::listen(m_listen, 4);
    }
    ~FakeCollector()
    {
        if (m_reader.joinable())
            m_reader.join();
        ::close(m_listen);
        ::unlink(path.c_str());
        ::rmdir(m_dir.c_str());
    }
    // `hangUpAfterHello`: reads the HELLO, then closes its end (the collector went away).
    void serve(bool hangUpAfterHello = false)
    {
        m_reader = std::thread([this, hangUpAfterHello] {
            const int fd = ::accept(m_listen, nullptr, nullptr);
            if (fd < 0)
                return;
            std::uint8_t chunk[65536];
            for (;;) {
                const ssize_t n = ::read(fd, chunk, sizeof chunk);
                if (n <= 0)
                    break;
                m_bytes.insert(m_bytes.end(), chunk, chunk + n);
                if (hangUpAfterHello && !decodeAll(m_bytes).empty())
                    break;
            }
            ::close(fd);
        });
    }
    // Everything received once the traced side closed its end.
    std::vector<DecodedFrame> frames()
    {
        if (m_reader.joinable())
            m_reader.join();
        return decodeAll(m_bytes);
    }
    std::string path;

private:
    std::string m_dir;
    int m_listen = -1;
    std::thread m_reader;
    std::vector<std::uint8_t> m_bytes;
};

CollectorOptions optionsFor(const FakeCollector& server, std::size_t maxBuffers = 4, bool dropBuffers = false,
                            bool torchObserver = true)
{
    CollectorOptions options;
    options.torchObserver = torchObserver;
    options.dropBuffers = dropBuffers;
    options.socketPath = server.path;
    options.token = "token-42";
    options.bufferBytes = 4096;
    options.maxBuffers = maxBuffers;
    options.flushPeriodMs = 5;
    return options;
}

// The injection library's collector on a fake CUPTI, sending to a fake collector. Configure
// `fake` first, then start().
struct Recording {
    FakeActivityApi fake;
    FakeCollector server;
    ActivityCollector* collector = nullptr;
    bool dropBuffers = false; // consumer=drop
    bool torchObserver = true; // ops=observer

    bool start(std::size_t maxBuffers = 4, bool hangUpAfterHello = false)
    {
        collector = ActivityCollector::start(fake, optionsFor(server, maxBuffers, dropBuffers, torchObserver));
        server.serve(hangUpAfterHello);
        return collector != nullptr;
    }
    // Shuts the collector down and returns everything the fake collector received.
    std::vector<DecodedFrame> finish()
    {
        collector->shutdown();
        return server.frames();
    }
};

// The ERROR frames a collector sends when it refuses to start on `fake`.
std::vector<wire::Error> refusal(FakeActivityApi& fake)
{
    FakeCollector server;
    server.serve();
    if (ActivityCollector::start(fake, optionsFor(server)))
        return {};
    return recordsOf<wire::Error>(server.frames());
}

template <class Predicate>
bool waitFor(Predicate done, int timeoutMs = 5000)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
}

injection::KernelActivity kernel(std::uint32_t correlation, const char* name)
{
    injection::KernelActivity k;
    k.record.start = 5'000;
    k.record.end = 7'500;
    k.record.queued = 4'000;
    k.record.device = 1;
    k.record.context = 3;
    k.record.stream = 7;
    k.record.correlation = correlation;
    k.record.grid[0] = 128;
    k.record.grid[1] = 2;
    k.record.grid[2] = 1;
    k.record.block[0] = 256;
    k.record.block[1] = 1;
    k.record.block[2] = 1;
    k.record.cluster[0] = 2;
    k.record.cluster[1] = 1;
    k.record.cluster[2] = 1;
    k.record.registersPerThread = 40;
    k.record.staticSharedMemory = 1024;
    k.record.dynamicSharedMemory = 49152;
    k.record.graphId = 9;
    k.record.graphNodeId = 0x1234567890ull;
    k.name = name;
    return k;
}

wire::Api api(wire::ApiDomain domain, std::uint32_t cbid, std::uint32_t correlation)
{
    wire::Api a;
    a.start = 4'000;
    a.end = 4'200;
    a.domain = static_cast<std::uint8_t>(domain);
    a.cbid = cbid;
    a.correlation = correlation;
    a.threadId = 4242;
    return a;
}

// A buffer's worth of every kind we record (one kernel with zero timestamps).
FakeBufferWriter everyKind(FakeActivityApi& fake)
{
    static const char kKernelName[] = "_Z6squarePfi";
    static const char kMarkerName[] = "forward";
    static const char kDomain[] = "torch";
    wire::Memcpy htod;
    htod.start = 1'000;
    htod.end = 2'000;
    htod.bytes = 4096;
    htod.copyKind = 1;
    htod.srcKind = 1;
    htod.dstKind = 3;
    htod.flags = 1;
    htod.device = 1;
    htod.context = 3;
    htod.stream = 7;
    htod.correlation = 11;
    htod.srcDevice = htod.dstDevice = 1;
    htod.graphId = 0;
    wire::Memcpy peer = htod;
    peer.copyKind = 10;
    peer.srcKind = 3;
    peer.srcDevice = 0;
    peer.dstDevice = 1;
    peer.correlation = 12;
    peer.graphId = 9;
    wire::Memset memset;
    memset.start = 3'000;
    memset.end = 3'100;
    memset.bytes = 512;
    memset.value = 0xff;
    memset.memoryKind = 3;
    memset.device = 1;
    memset.context = 3;
    memset.stream = 7;
    memset.correlation = 13;
    memset.graphId = 9;
    wire::Sync sync;
    sync.start = 8'000;
    sync.end = 9'000;
    sync.type = 3;
    sync.context = 3;
    sync.stream = 7;
    sync.correlation = 14;
    injection::MarkerActivity start;
    start.record.time = 500;
    start.record.id = 1;
    start.record.flags = wire::Marker::Start;
    start.record.threadId = 4242;
    start.name = kMarkerName;
    start.domain = kDomain;
    injection::MarkerActivity end = start;
    end.record.time = 9'500;
    end.record.flags = wire::Marker::End;
    end.name = nullptr;
    wire::Overhead overhead;
    overhead.start = 100;
    overhead.end = 400;
    overhead.kind = 65536;
    overhead.threadId = 4242;
    wire::Device device;
    device.id = 1;
    device.name = "NVIDIA H200";
    device.numSms = 132;
    device.computeMajor = 9;
    fake.devices = {device};
    injection::KernelActivity unfinished = kernel(16, kKernelName);
    unfinished.record.start = unfinished.record.end = 0;
    FakeBufferWriter w;
    w.add(FakeKind::Device, std::uint32_t{0})
        .add(FakeKind::Api, api(wire::ApiDomain::Runtime, 211, 10))
        .add(FakeKind::Kernel, kernel(10, kKernelName))
        .add(FakeKind::Api, api(wire::ApiDomain::Driver, 307, 15))
        .add(FakeKind::Kernel, kernel(15, kKernelName))
        .add(FakeKind::Kernel, unfinished)
        .add(FakeKind::Memcpy, htod)
        .add(FakeKind::Memcpy, peer)
        .add(FakeKind::Memset, memset)
        .add(FakeKind::Sync, sync)
        .add(FakeKind::Marker, start)
        .add(FakeKind::Marker, end)
        .add(FakeKind::Overhead, overhead)
        .add(FakeKind::Unknown, std::uint32_t{77})
        .add(FakeKind::Api, api(wire::ApiDomain::Runtime, 999, 17));
    return w;
}

// What pthread_atfork does in injection.cpp, for the collector a test started.
ActivityCollector* g_forkTarget = nullptr;
void forkedChildHandler()
{
    if (g_forkTarget)
        g_forkTarget->forkedChild();
}

} // namespace

class TestActivityCollector : public QObject {
    Q_OBJECT
private slots:
    void translatesEveryKind()
    {
        FakeActivityApi fake;
        const FakeBufferWriter buffer = everyKind(fake);
        injection::RecordTranslator translator(fake);
        std::vector<std::uint8_t> out;
        translator.translate(buffer.bytes().data(), buffer.bytes().size(), out);
        const auto frames = decodeAll(out);

        QCOMPARE(translator.records(), std::uint64_t(15));
        QCOMPARE(translator.zeroTimestamps(), std::uint64_t(1));
        QCOMPARE(translator.undecodable(), std::uint64_t(1));

        const auto kernels = recordsOf<wire::Kernel>(frames);
        QCOMPARE(kernels.size(), std::size_t(2)); // the one with start = end = 0 is left out
        const wire::Kernel& k = kernels[0];
        QCOMPARE(k.correlation, 10u);
        QCOMPARE(k.start, std::int64_t(5'000));
        QCOMPARE(k.end, std::int64_t(7'500));
        QCOMPARE(k.queued, std::int64_t(4'000));
        QCOMPARE(k.grid[0], 128);
        QCOMPARE(k.grid[1], 2);
        QCOMPARE(k.block[0], 256);
        QCOMPARE(k.cluster[0], 2);
        QCOMPARE(k.registersPerThread, 40);
        QCOMPARE(k.staticSharedMemory, 1024);
        QCOMPARE(k.dynamicSharedMemory, 49152);
        QCOMPARE(k.graphId, 9u);
        QCOMPARE(k.graphNodeId, std::uint64_t(0x1234567890ull));
        QCOMPARE(stringText(frames, k.name), std::string("_Z6squarePfi"));
        QCOMPARE(kernels[1].name, k.name); // interned once

        const auto copies = recordsOf<wire::Memcpy>(frames);
        QCOMPARE(copies.size(), std::size_t(2));
        QCOMPARE(int(copies[0].copyKind), 1); // HtoD
        QCOMPARE(int(copies[0].srcKind), 1);
        QCOMPARE(int(copies[0].dstKind), 3);
        QCOMPARE(copies[0].bytes, std::uint64_t(4096));
        QCOMPARE(int(copies[1].copyKind), 10); // peer to peer
        QCOMPARE(copies[1].srcDevice, 0u);
        QCOMPARE(copies[1].dstDevice, 1u);
        QCOMPARE(copies[1].graphId, 9u);

        const auto memsets = recordsOf<wire::Memset>(frames);
        QCOMPARE(memsets.size(), std::size_t(1));
        QCOMPARE(memsets[0].value, 0xffu);
        QCOMPARE(memsets[0].bytes, std::uint64_t(512));
        QCOMPARE(memsets[0].graphId, 9u);

        const auto apis = recordsOf<wire::Api>(frames);
        QCOMPARE(apis.size(), std::size_t(3));
        QCOMPARE(stringText(frames, apis[0].name), std::string("cudaLaunchKernel_v7000"));
        QCOMPARE(int(apis[0].domain), int(wire::ApiDomain::Runtime));
        QCOMPARE(stringText(frames, apis[1].name), std::string("cuLaunchKernel"));
        QCOMPARE(int(apis[1].domain), int(wire::ApiDomain::Driver));
        QCOMPARE(stringText(frames, apis[2].name), std::string("cbid 999")); // CUPTI knows no name
        QCOMPARE(apis[0].threadId, std::uint64_t(4242));

        const auto syncs = recordsOf<wire::Sync>(frames);
        QCOMPARE(syncs.size(), std::size_t(1));
        QCOMPARE(syncs[0].correlation, 14u);

        const auto markers = recordsOf<wire::Marker>(frames);
        QCOMPARE(markers.size(), std::size_t(2));
        QCOMPARE(stringText(frames, markers[0].name), std::string("forward"));
        QCOMPARE(stringText(frames, markers[0].domain), std::string("torch"));
        QCOMPARE(markers[1].name, 0u); // a range end has no name
        QCOMPARE(markers[1].domain, markers[0].domain);

        const auto overheads = recordsOf<wire::Overhead>(frames);
        QCOMPARE(overheads.size(), std::size_t(1));
        QCOMPARE(overheads[0].kind, 65536u);
        const auto devices = recordsOf<wire::Device>(frames);
        QCOMPARE(devices.size(), std::size_t(1));
        QCOMPARE(devices[0].name, std::string("NVIDIA H200"));
        QCOMPARE(devices[0].numSms, 132);
        // Strings: kernel name, 3 API names, marker name, domain.
        QCOMPARE(recordsOf<wire::StringDef>(frames).size(), std::size_t(6));
    }

    void cuptiVersionSchemes()
    {
        using injection::cuptiVersionsCompatible;
        QVERIFY(cuptiVersionsCompatible(130000, 130001)); // CUPTI update within 13.0
        QVERIFY(!cuptiVersionsCompatible(130100, 130001)); // 13.1 vs 13.0
        QVERIFY(cuptiVersionsCompatible(24, 24));
        QVERIFY(!cuptiVersionsCompatible(24, 28)); // both below 100: the old check let these pass
        QVERIFY(!cuptiVersionsCompatible(28, 130001));
        QCOMPARE(injection::cuptiVersionText(130001), std::string("13.0 (130001)"));
        QCOMPARE(injection::cuptiVersionText(28), std::string("v28"));
    }

    void helloCarriesVersionsThenGoodbye()
    {
        Recording r;
        QVERIFY(r.start());
        QVERIFY(r.fake.deliver(everyKind(r.fake)));
        const auto frames = r.finish();
        const auto hello = recordsOf<wire::Hello>(frames);
        QCOMPARE(hello.size(), std::size_t(1));
        QCOMPARE(hello[0].token, std::string("token-42"));
        QCOMPARE(hello[0].pid, std::int64_t(getpid()));
        QCOMPARE(hello[0].cuptiVersion, 130001u);
        QCOMPARE(hello[0].driverVersion, 13000);
        QCOMPARE(hello[0].runtimeVersion, 12080);
        QCOMPARE(hello[0].clock.cuptiNs, std::int64_t(1'000'000'000));
        QCOMPARE(recordsOf<wire::Kernel>(frames).size(), std::size_t(2));
        const auto goodbye = recordsOf<wire::Goodbye>(frames);
        QCOMPARE(goodbye.size(), std::size_t(1));
        QCOMPARE(goodbye[0].records, std::uint64_t(15));
        QCOMPARE(goodbye[0].buffersRequested, std::uint64_t(1));
        QCOMPARE(goodbye[0].buffersCompleted, std::uint64_t(1));
        QVERIFY(recordsOf<wire::Error>(frames).empty());
        QCOMPARE(r.fake.forcedFlushes.load(), 1);
    }

    void versionMismatchIsReported()
    {
        FakeActivityApi fake;
        fake.loaded = 130100;
        const auto errors = refusal(fake);
        QCOMPARE(errors.size(), std::size_t(1));
        QCOMPARE(errors[0].code, std::int32_t(wire::ErrorCode::CuptiVersion));
        QCOMPARE(errors[0].message,
                 std::string("the process loaded CUPTI 13.1 (130100) but the collector was built for 13.0 (130001)"));
    }

    void cuptiInUseIsReported()
    {
        FakeActivityApi fake;
        fake.subscribeResult = {injection::ApiResult::Status::InUse, "taken"};
        const auto errors = refusal(fake);
        QCOMPARE(errors.size(), std::size_t(1));
        QCOMPARE(errors[0].code, std::int32_t(wire::ErrorCode::CuptiInUse));
    }

    void bufferCapAndDropAccounting()
    {
        Recording r;
        QVERIFY(r.start(/*maxBuffers=*/2));
        FakeActivityApi& fake = r.fake;
        std::uint8_t* a = fake.requestBuffer();
        std::uint8_t* b = fake.requestBuffer();
        QVERIFY(a && b);
        QVERIFY(!fake.requestBuffer()); // at the cap: CUPTI drops and counts
        QVERIFY(!fake.requestBuffer());
        fake.droppedPerBuffer = 37; // what CUPTI reports for a's stream
        FakeBufferWriter one;
        one.add(FakeKind::Kernel, kernel(1, "k"));
        fake.completeBuffer(a, one);
        fake.completeBuffer(b, one);
        const auto frames = r.finish();
        const auto dropped = recordsOf<wire::Dropped>(frames);
        QVERIFY(!dropped.empty());
        QCOMPARE(dropped.back().cuptiRecords, std::uint64_t(37));
        QCOMPARE(dropped.back().poolExhausted, std::uint64_t(2));
        const auto goodbye = recordsOf<wire::Goodbye>(frames);
        QCOMPARE(goodbye.size(), std::size_t(1));
        QCOMPARE(goodbye[0].buffersRequested, std::uint64_t(2));
        QCOMPARE(goodbye[0].buffersCompleted, std::uint64_t(2));
        QCOMPARE(goodbye[0].records, std::uint64_t(2));
        QVERIFY(recordsOf<wire::Error>(frames).empty());
    }

    void takeoverIsDetected()
    {
        Recording r;
        r.fake.forcedFlushCompletes = false; // another client now receives CUPTI's buffers
        QVERIFY(r.start());
        QVERIFY(r.fake.deliver(everyKind(r.fake)));
        QVERIFY(r.fake.requestBuffer()); // never comes back
        const auto frames = r.finish();
        const auto errors = recordsOf<wire::Error>(frames);
        QCOMPARE(errors.size(), std::size_t(1));
        QCOMPARE(errors[0].code, std::int32_t(wire::ErrorCode::CuptiTakenOver));
        QCOMPARE(recordsOf<wire::Goodbye>(frames).size(), std::size_t(1));
    }

    // kinetoscope_pause_cupti: pausing disables CUPTI and takes back the buffer it still held
    // (another client may register its callbacks next); resuming enables the same selection;
    // repeating either is a no-op; records delivered on both sides of a pause all arrive, and
    // a pause in between is no takeover.
    void pausingCuptiHandsBackItsBuffers()
    {
        Recording r;
        QVERIFY(r.start());
        FakeActivityApi& fake = r.fake;
        QVERIFY(fake.subscribed);
        QVERIFY(fake.deliver(everyKind(fake)));
        QVERIFY(fake.requestBuffer()); // outstanding when the pause comes
        QVERIFY(r.collector->pauseCupti(true));
        QCOMPARE(fake.disableCalls.load(), 1);
        QCOMPARE(fake.forcedFlushes.load(), 1);
        QVERIFY(!fake.subscribed); // torch.profiler may subscribe now
        QVERIFY(r.collector->pauseCupti(true));
        QCOMPARE(fake.disableCalls.load(), 1);
        QCOMPARE(fake.enableCalls.load(), 1);
        QVERIFY(r.collector->pauseCupti(false));
        QCOMPARE(fake.enableCalls.load(), 2);
        QVERIFY(r.collector->pauseCupti(false));
        QCOMPARE(fake.enableCalls.load(), 2);
        QVERIFY(fake.selection.systemThreadIds);
        QVERIFY(fake.deliver(everyKind(fake)));
        const auto frames = r.finish();
        QVERIFY(recordsOf<wire::Error>(frames).empty());
        const auto kernels = recordsOf<wire::Kernel>(frames);
        const auto goodbye = recordsOf<wire::Goodbye>(frames);
        QCOMPARE(goodbye.size(), std::size_t(1));
        QCOMPARE(goodbye[0].buffersRequested, std::uint64_t(3));
        QCOMPARE(goodbye[0].buffersCompleted, std::uint64_t(3));
        QCOMPARE(kernels.size(), std::size_t(4)); // each delivery's two finished kernels
    }

    void collectorGoneMidStreamDetaches()
    {
        Recording r;
        QVERIFY(r.start(/*maxBuffers=*/64, /*hangUpAfterHello=*/true));
        FakeActivityApi& fake = r.fake;
        QCOMPARE(recordsOf<wire::Hello>(r.server.frames()).size(), std::size_t(1)); // and it hung up
        // Keep producing until the sender notices: writes fail (no SIGPIPE kills us) and it detaches.
        const bool detached = waitFor([&] {
            fake.deliver(everyKind(fake));
            return fake.disableCalls.load() > 0;
        });
        QVERIFY(detached);
        QCOMPARE(fake.disableCalls.load(), 1);
        QVERIFY(waitFor([&] { return !fake.requestBuffer(); })); // no more buffers for CUPTI
        r.collector->shutdown(); // returns promptly, with nobody to say GOODBYE to
        QCOMPARE(fake.forcedFlushes.load(), 0);
    }

    void exceptionOnFlushThreadDetaches()
    {
        Recording r;
        r.fake.onPeriodicFlush = [] { throw std::runtime_error("flush failed"); };
        QVERIFY(r.start());
        QVERIFY(waitFor([&] { return r.fake.disableCalls.load() > 0; })); // not std::terminate
        QVERIFY(!r.fake.requestBuffer());
        const auto frames = r.finish();
        QCOMPARE(recordsOf<wire::Hello>(frames).size(), std::size_t(1));
        QVERIFY(recordsOf<wire::Goodbye>(frames).empty()); // detached: nothing more is sent
    }

    void forkDuringFlushLeavesChildInertAndParentConnected()
    {
        Recording r;
        QVERIFY(r.start());
        FakeActivityApi& fake = r.fake;
        ActivityCollector* collector = r.collector;
        g_forkTarget = collector;
        static bool registered = false;
        if (!registered)
            pthread_atfork(nullptr, nullptr, forkedChildHandler);
        registered = true;
        // The first periodic flush forks, on the collector's flush thread, while a buffer is
        // outstanding. The child must hand out no buffer, drop a completed one and send nothing.
        std::uint8_t* outstanding = fake.requestBuffer();
        std::atomic<pid_t> child{0};
        fake.onPeriodicFlush = [&] {
            if (child.load() != 0)
                return;
            const pid_t pid = fork();
            if (pid == 0) {
                // The callbacks CUPTI would call in the child, then its atexit handler.
                const bool refused = fake.requestBuffer() == nullptr;
                fake.completeBuffer(outstanding, FakeBufferWriter{}); // ignored: the child is inert
                collector->shutdown();
                _exit(refused ? 0 : 3);
            }
            child.store(pid);
        };
        QVERIFY(waitFor([&] { return child.load() != 0; }));
        int status = 0;
        QCOMPARE(waitpid(child.load(), &status, 0), child.load());
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
        // The parent's connection survived the child's close of its copy.
        fake.completeBuffer(outstanding, everyKind(fake));
        QVERIFY(fake.deliver(everyKind(fake)));
        const auto frames = r.finish();
        g_forkTarget = nullptr;
        QCOMPARE(recordsOf<wire::Hello>(frames).size(), std::size_t(1));
        QCOMPARE(recordsOf<wire::Kernel>(frames).size(), std::size_t(4));
        const auto goodbye = recordsOf<wire::Goodbye>(frames);
        QCOMPARE(goodbye.size(), std::size_t(1));
        QCOMPARE(goodbye[0].buffersCompleted, std::uint64_t(2));
        QVERIFY(fake.flushes.load() >= 1);
    }

    // consumer=drop: CUPTI's buffers go back unread, NVTX rings are emptied unread; the run still
    // ends with its accounting, so the collector reports a clean (empty) process.
    void dropConsumerSendsNoRecords()
    {
        Recording r;
        r.dropBuffers = true;
        QVERIFY(r.start(/*maxBuffers=*/2));
        FakeActivityApi& fake = r.fake;
        FakeBufferWriter one;
        one.add(FakeKind::Kernel, kernel(1, "k"));
        for (int i = 0; i < 5; ++i) { // more buffers than the cap: each went back to the pool
            std::uint8_t* buffer = nullptr;
            QVERIFY(waitFor([&] { return (buffer = fake.requestBuffer()) != nullptr; }));
            fake.completeBuffer(buffer, one);
        }
        QVERIFY(r.collector->nvtxRecorder() != nullptr);
        r.collector->nvtxRecorder()->push(nullptr, "aten::mm");
        r.collector->nvtxRecorder()->pop(nullptr);
        const auto frames = r.finish();
        QVERIFY(recordsOf<wire::Kernel>(frames).empty());
        QVERIFY(recordsOf<wire::Marker>(frames).empty());
        const auto goodbye = recordsOf<wire::Goodbye>(frames);
        QCOMPARE(goodbye.size(), std::size_t(1));
        QCOMPARE(goodbye[0].buffersCompleted, std::uint64_t(5));
        QCOMPARE(goodbye[0].records, std::uint64_t(0));
    }

    // nvtx=own (the default): ranges pushed on two threads reach the collector as MARKER frames,
    // start and end sharing an id, the text on the start, in the order each thread wrote them;
    // kinds=kineto reaches CUPTI's enable().
    void ownNvtxRangesReachTheCollector()
    {
        Recording r;
        QVERIFY(r.start());
        QVERIFY(!r.fake.selection.kinetoKindsOnly);
        QVERIFY(r.fake.selection.systemThreadIds);
        injection::NvtxRecorder* nvtx = r.collector->nvtxRecorder();
        QVERIFY(nvtx != nullptr);
        QCOMPARE(nvtx->push(nullptr, "aten::linear, seq = 3, op_id = 7"), 0);
        QCOMPARE(nvtx->push(nullptr, "aten::addmm, op_id = 8"), 1);
        std::thread([nvtx] {
            nvtx->push(nullptr, "LinearBackward0, seq = 3, op_id = 9");
            nvtx->pop(nullptr);
        }).join();
        QCOMPARE(nvtx->pop(nullptr), 1);
        QCOMPARE(nvtx->pop(nullptr), 0);
        QCOMPARE(nvtx->pop(nullptr), -1); // nothing open
        nvtx->mark(nullptr, "checkpoint");
        const auto frames = r.finish();

        const auto markers = recordsOf<wire::Marker>(frames);
        QCOMPARE(markers.size(), std::size_t(7));
        std::map<std::uint32_t, std::vector<wire::Marker>> byId;
        for (const auto& m : markers)
            byId[m.id].push_back(m);
        QCOMPARE(byId.size(), std::size_t(4));
        std::map<std::string, std::uint64_t> threadOf;
        for (const auto& [id, pair] : byId) {
            const std::string text = stringText(frames, pair.front().name);
            if (text == "checkpoint") {
                QCOMPARE(pair.size(), std::size_t(1));
                QCOMPARE(pair[0].flags, std::uint32_t(wire::Marker::Instant));
                continue;
            }
            QCOMPARE(pair.size(), std::size_t(2));
            QCOMPARE(pair[0].flags, std::uint32_t(wire::Marker::Start));
            QCOMPARE(pair[1].flags, std::uint32_t(wire::Marker::End));
            QCOMPARE(pair[1].name, 0u);
            QVERIFY(pair[0].time <= pair[1].time);
            QCOMPARE(pair[0].threadId, pair[1].threadId);
            threadOf[text] = pair[0].threadId;
        }
        QCOMPARE(threadOf.size(), std::size_t(3));
        QCOMPARE(threadOf["aten::linear, seq = 3, op_id = 7"], threadOf["aten::addmm, op_id = 8"]);
        QVERIFY(threadOf["LinearBackward0, seq = 3, op_id = 9"] != threadOf["aten::addmm, op_id = 8"]);
        const auto dropped = recordsOf<wire::Dropped>(frames);
        QVERIFY(!dropped.empty());
        QCOMPARE(dropped.back().cuptiRecords, std::uint64_t(0));
    }

    // The PyTorch observer's operators (ops=observer, the default) reach the collector as the very
    // MARKER ranges emit_nvtx's texts became: the same texts, formatted on our sender thread, in the
    // default domain, nested apart from the program's own NVTX ranges; ops=nvtx declines them.
    void observerOpsReachTheCollectorAsEmitNvtxRanges()
    {
        Recording r;
        QVERIFY(r.start());
        injection::NvtxRecorder* ops = r.collector->torchOpRecorder();
        QVERIFY(ops != nullptr);
        const std::uint32_t ranks[] = {2, 2, 0};
        const std::int64_t dims[] = {8, 16, 16, 4};
        KinetoscopeTorchOp linear{};
        linear.size = sizeof linear;
        linear.name = "aten::linear";
        linear.sequence = 3;
        linear.opId = 7;
        linear.shapeCount = 3;
        linear.ranks = ranks;
        linear.dims = dims;
        linear.dimCount = 4;
        KinetoscopeTorchOp label{};
        label.size = sizeof label;
        label.name = "## forward ##";
        label.sequence = -1;
        label.opId = 6;
        QVERIFY(ops->beginTorchOp(label));
        QVERIFY(ops->beginTorchOp(linear));
        // The program's own range inside the op: its depth counts the ops, as emit_nvtx's pushes did.
        QCOMPARE(ops->push(nullptr, "user range"), 2);
        ops->endTorchOp(); // closes aten::linear, not the user's range
        linear.opId = 8; // the same name again: sent as an id only, read back as text
        QVERIFY(ops->beginTorchOp(linear));
        ops->endTorchOp();
        QCOMPARE(ops->pop(nullptr), 1);
        ops->endTorchOp();
        const auto frames = r.finish();

        // The fake's clock stands still: the ranges' nesting shows in the order of their frames.
        const auto markers = recordsOf<wire::Marker>(frames);
        std::map<std::uint32_t, std::vector<std::size_t>> byId; // id: indexes of its start and end
        for (std::size_t i = 0; i < markers.size(); ++i)
            byId[markers[i].id].push_back(i);
        std::map<std::string, std::pair<std::size_t, std::size_t>> rangeOf; // text: start, end
        for (const auto& [id, at] : byId) {
            QCOMPARE(at.size(), std::size_t(2));
            const wire::Marker& start = markers[at[0]];
            QCOMPARE(start.flags, std::uint32_t(wire::Marker::Start)); // TorchOp never reaches the wire
            QCOMPARE(markers[at[1]].flags, std::uint32_t(wire::Marker::End));
            QCOMPARE(start.domain, 0u);
            rangeOf[stringText(frames, start.name)] = {at[0], at[1]};
        }
        QCOMPARE(rangeOf.size(), std::size_t(4));
        const auto outer = rangeOf["## forward ##, op_id = 6"];
        const auto first = rangeOf["aten::linear, seq = 3, op_id = 7, sizes = [[8, 16], [16, 4], []]"];
        const auto second = rangeOf["aten::linear, seq = 3, op_id = 8, sizes = [[8, 16], [16, 4], []]"];
        const auto user = rangeOf["user range"];
        QVERIFY(outer.second > 0 && first.second > 0 && second.second > 0 && user.second > 0);
        QVERIFY(outer.first < first.first && first.second < second.first && second.second < outer.second);
        QVERIFY(first.first < user.first && first.second < user.second && user.second < outer.second);

        Recording declined;
        declined.torchObserver = false; // ops=nvtx: the sitecustomize falls back to emit_nvtx
        QVERIFY(declined.start());
        QVERIFY(declined.collector->torchOpRecorder() == nullptr);
        QVERIFY(declined.collector->nvtxRecorder() != nullptr);
        declined.finish();
    }
};

QTEST_APPLESS_MAIN(TestActivityCollector)
#include "tst_activitycollector.moc"
