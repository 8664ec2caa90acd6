// CUPTI's record layouts in our terms: records filled in through CUPTI's own headers, as
// the release we build against lays them out. Needs CUPTI's headers, not a GPU; where they
// are absent this test is not built (tst_activitycollector covers everything after decoding).
#include "collector/injection/cuptiactivityapi.h"

#include <QTest>

#include <vector>

using namespace ks;

namespace {

// Keeps what the decoder hands over.
struct RecordingSink : injection::ActivitySink {
    std::vector<injection::KernelActivity> kernels;
    std::vector<wire::Memcpy> copies;
    std::vector<wire::Memset> memsets;
    std::vector<wire::Api> apis;
    std::vector<wire::Sync> syncs;
    std::vector<injection::MarkerActivity> markers;
    std::vector<wire::Overhead> overheads;
    std::vector<wire::Device> devices;
    int unknown = 0;
    void kernel(const injection::KernelActivity& a) override { kernels.push_back(a); }
    void memcpy(const wire::Memcpy& r) override { copies.push_back(r); }
    void memset(const wire::Memset& r) override { memsets.push_back(r); }
    void api(const wire::Api& r) override { apis.push_back(r); }
    void sync(const wire::Sync& r) override { syncs.push_back(r); }
    void marker(const injection::MarkerActivity& a) override { markers.push_back(a); }
    void overhead(const wire::Overhead& r) override { overheads.push_back(r); }
    void device(const wire::Device& r) override { devices.push_back(r); }
    void unknownKind() override { ++unknown; }
};

template <class Record>
void decode(const Record& record, RecordingSink& sink)
{
    injection::decodeCuptiRecord(reinterpret_cast<const CUpti_Activity&>(record), sink);
}

} // namespace

class TestCuptiRecords : public QObject {
    Q_OBJECT
private slots:
    void kernelLaunchShape()
    {
        CUpti_ActivityKernel10 r{};
        r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        r.start = 1'000;
        r.end = 3'000;
        r.queued = CUPTI_TIMESTAMP_UNKNOWN;
        r.deviceId = 2;
        r.contextId = 5;
        r.streamId = 13;
        r.correlationId = 77;
        r.gridX = 1024;
        r.gridY = 3;
        r.gridZ = 1;
        r.blockX = 128;
        r.blockY = 2;
        r.blockZ = 1;
        r.clusterX = 2;
        r.clusterY = 1;
        r.clusterZ = 1;
        r.registersPerThread = 72;
        r.staticSharedMemory = 2048;
        r.dynamicSharedMemory = 98304;
        r.graphId = 4;
        r.graphNodeId = 0xabcdef01ull;
        r.name = "_Z4gemmv";
        RecordingSink sink;
        decode(r, sink);
        QCOMPARE(sink.kernels.size(), std::size_t(1));
        const wire::Kernel& k = sink.kernels[0].record;
        QCOMPARE(k.queued, std::int64_t(0)); // unknown
        QCOMPARE(k.start, std::int64_t(1'000));
        QCOMPARE(k.end, std::int64_t(3'000));
        QCOMPARE(k.device, 2u);
        QCOMPARE(k.stream, 13u);
        QCOMPARE(k.correlation, 77u);
        QCOMPARE(k.grid[0], 1024);
        QCOMPARE(k.grid[1], 3);
        QCOMPARE(k.block[0], 128);
        QCOMPARE(k.block[1], 2);
        QCOMPARE(k.cluster[0], 2);
        QCOMPARE(k.registersPerThread, 72);
        QCOMPARE(k.staticSharedMemory, 2048);
        QCOMPARE(k.dynamicSharedMemory, 98304);
        QCOMPARE(k.graphId, 4u);
        QCOMPARE(k.graphNodeId, std::uint64_t(0xabcdef01ull));
        QCOMPARE(std::string(sink.kernels[0].name), std::string("_Z4gemmv"));
    }

    void copiesAndMemsets()
    {
        CUpti_ActivityMemcpy6 copy{};
        copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
        copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
        copy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
        copy.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
        copy.bytes = 1 << 20;
        copy.start = 10;
        copy.end = 20;
        copy.deviceId = 1;
        copy.correlationId = 0; // seen on CUDA 13: the runtime's id is in runtimeCorrelationId
        copy.runtimeCorrelationId = 55;
        copy.graphId = 8;
        CUpti_ActivityMemcpyPtoP4 peer{};
        peer.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
        peer.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
        peer.srcDeviceId = 0;
        peer.dstDeviceId = 3;
        peer.deviceId = 0;
        peer.correlationId = 56;
        CUpti_ActivityMemset4 memset{};
        memset.kind = CUPTI_ACTIVITY_KIND_MEMSET;
        memset.bytes = 4096;
        memset.value = 7;
        memset.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
        memset.correlationId = 57;
        memset.graphId = 8;
        RecordingSink sink;
        decode(copy, sink);
        decode(peer, sink);
        decode(memset, sink);
        QCOMPARE(sink.copies.size(), std::size_t(2));
        QCOMPARE(int(sink.copies[0].copyKind), int(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH));
        QCOMPARE(int(sink.copies[0].srcKind), int(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE));
        QCOMPARE(int(sink.copies[0].dstKind), int(CUPTI_ACTIVITY_MEMORY_KIND_PINNED));
        QCOMPARE(sink.copies[0].correlation, 55u);
        QCOMPARE(sink.copies[0].bytes, std::uint64_t(1 << 20));
        QCOMPARE(sink.copies[0].graphId, 8u);
        QCOMPARE(sink.copies[0].srcDevice, 1u);
        QCOMPARE(sink.copies[0].dstDevice, 1u);
        QCOMPARE(int(sink.copies[1].copyKind), int(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP));
        QCOMPARE(sink.copies[1].dstDevice, 3u);
        QCOMPARE(sink.copies[1].correlation, 56u);
        QCOMPARE(sink.memsets.size(), std::size_t(1));
        QCOMPARE(sink.memsets[0].value, 7u);
        QCOMPARE(sink.memsets[0].graphId, 8u);
    }

    void callsMarkersOverheadAndUnknownKinds()
    {
        CUpti_ActivityAPI driver{};
        driver.kind = CUPTI_ACTIVITY_KIND_DRIVER;
        driver.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
        driver.correlationId = 9;
        driver.threadId = 31337;
        driver.returnValue = 1;
        CUpti_ActivityMarker2 marker{};
        marker.kind = CUPTI_ACTIVITY_KIND_MARKER;
        marker.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
        marker.id = 4;
        marker.name = "step";
        marker.domain = "app";
        marker.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
        marker.objectId.pt.threadId = 31337;
        CUpti_ActivityOverhead3 overhead{};
        overhead.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
        overhead.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
        overhead.objectKind = CUPTI_ACTIVITY_OBJECT_PROCESS;
        CUpti_ActivityKernel10 other{};
        other.kind = CUPTI_ACTIVITY_KIND_KERNEL; // serialized kernels: not a kind we enable
        RecordingSink sink;
        decode(driver, sink);
        decode(marker, sink);
        decode(overhead, sink);
        decode(other, sink);
        QCOMPARE(sink.apis.size(), std::size_t(1));
        QCOMPARE(int(sink.apis[0].domain), int(wire::ApiDomain::Driver));
        QCOMPARE(sink.apis[0].cbid, std::uint32_t(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
        QCOMPARE(sink.apis[0].threadId, std::uint64_t(31337));
        QCOMPARE(sink.apis[0].returnValue, 1);
        QCOMPARE(sink.markers.size(), std::size_t(1));
        QCOMPARE(sink.markers[0].record.flags, std::uint32_t(wire::Marker::Start));
        QCOMPARE(sink.markers[0].record.threadId, std::uint64_t(31337));
        QCOMPARE(std::string(sink.markers[0].domain), std::string("app"));
        QCOMPARE(sink.overheads.size(), std::size_t(1));
        QCOMPARE(sink.overheads[0].kind, std::uint32_t(CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH));
        QCOMPARE(sink.overheads[0].threadId, std::uint64_t(0)); // not a thread object
        QCOMPARE(sink.unknown, 1);
    }

    // api=kineto keeps the driver calls that move data or wait, drops cuBLAS's and the runtime's
    // per-launch queries (names as cuptiGetCallbackName gives them).
    void tracedDriverCalls()
    {
        for (const char* kept : {"cuLaunchKernel", "cuLaunchKernelEx", "cuMemcpyHtoDAsync_v2", "cuMemsetD8Async",
                                 "cuMemAlloc_v2", "cuMemCreate", "cuMemMap", "cuGraphLaunch", "cuStreamSynchronize",
                                 "cuStreamWaitEvent", "cuCtxSynchronize", "cuEventSynchronize"})
            QVERIFY(injection::isTracedDriverCall(kept));
        for (const char* dropped :
             {"cuKernelGetFunction", "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "cuCtxGetCurrent",
              "cuDeviceGetAttribute", "cuFuncGetAttribute", "cuGetProcAddress_v2", "cuStreamGetCaptureInfo",
              "cuPointerGetAttribute", "cuEventRecord", ""})
            QVERIFY(!injection::isTracedDriverCall(dropped));
    }

    // clock=realtime rests on CUPTI's clock being CLOCK_REALTIME on Linux (its documentation); the
    // check the injection makes before relying on it holds here (no GPU needed to read the clock).
    void cuptiClockIsRealtimeOnLinux() { QVERIFY(injection::cuptiClockIsRealtime()); }
};

QTEST_APPLESS_MAIN(TestCuptiRecords)
#include "tst_cuptirecords.moc"
