#include "collector/injection/cuptiactivityapi.h"

#include <cuda.h>
#include <dlfcn.h>
#include <time.h>

namespace ks::injection {
namespace {

std::int64_t ns(std::uint64_t t) { return static_cast<std::int64_t>(t); }

std::int64_t realtimeNs()
{
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now); // the vDSO: no system call
    return std::int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
}

std::int64_t cuptiNs()
{
    std::uint64_t t = 0;
    cuptiGetTimestamp(&t);
    return ns(t);
}

} // namespace

bool cuptiClockIsRealtime()
{
    constexpr std::int64_t kSameClockNs = 1000000;
    const std::int64_t before = realtimeNs();
    const std::int64_t cupti = cuptiNs();
    const std::int64_t after = realtimeNs();
    return cupti >= before - kSameClockNs && cupti <= after + kSameClockNs;
}

namespace {

// Runtime calls torch.profiler never shows (kineto's blocklist, CuptiCbidRegistry): with
// api=kineto CUPTI does not record them at all. cudaGetLastError alone came 143 times a step
// on a small training loop, more than the kernels.
constexpr CUpti_CallbackId kUnshownRuntimeCalls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventCreate_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventCreateWithFlags_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020,
};
// api=all still leaves out the queries the runtime issues once per launch itself.
constexpr CUpti_CallbackId kNoisyDriverCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuKernelGetName,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
    CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState,
};

// What torch.profiler enables for CPU+CUDA (kineto's kCudaTypes; EXTERNAL_CORRELATION we do
// not need), plus DEVICE (one record, for occupancy) and MARKER (NVTX: PyTorch's operators).
constexpr CUpti_ActivityKind kKinetoKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_MARKER,
    CUPTI_ACTIVITY_KIND_DEVICE,
    CUPTI_ACTIVITY_KIND_OVERHEAD,
};
// kinds=all: also synchronisations and peer-to-peer copies.
constexpr CUpti_ActivityKind kExtraKinds[] = {
    CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
};

ApiResult failure(const char* call, CUptiResult result)
{
    const char* text = nullptr;
    cuptiGetResultString(result, &text);
    return {ApiResult::Status::Failed,
            std::string(call) + " failed: " + (text ? text : "error " + std::to_string(result))};
}

ApiResult enableKind(CUpti_ActivityKind kind)
{
    const CUptiResult result = cuptiActivityEnable(kind);
    if (result == CUPTI_SUCCESS)
        return {};
    ApiResult failed = failure("cuptiActivityEnable", result);
    failed.error += " (kind " + std::to_string(kind) + ")";
    return failed;
}

// The subscriber's callback: we only subscribe to claim CUPTI, no callbacks are enabled.
void CUPTIAPI ignoreCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) { }

// CUPTI's callbacks take a CUcontext; ours an opaque pointer. CUPTI keeps one pair per process.
BufferRequestedFn g_requested = nullptr;
BufferCompletedFn g_completed = nullptr;

void CUPTIAPI requestedTrampoline(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords)
{
    g_requested(buffer, size, maxNumRecords);
}

void CUPTIAPI completedTrampoline(CUcontext context, std::uint32_t streamId, std::uint8_t* buffer, std::size_t size,
                                  std::size_t validSize)
{
    g_completed(context, streamId, buffer, size, validSize);
}

// A symbol of a library the process already loaded (we never load CUDA ourselves).
void* loadedSymbol(const char* library, const char* symbol)
{
    void* handle = dlopen(library, RTLD_LAZY | RTLD_NOLOAD);
    return handle ? dlsym(handle, symbol) : nullptr;
}

// Two limits the DEVICE record lacks. Queried through the driver the application already
// loaded; called on our sender thread, never inside an application's CUDA call.
void queryDriverAttributes(int ordinal, wire::Device& d)
{
    using GetAttribute = CUresult (*)(int*, CUdevice_attribute, CUdevice);
    static const auto getAttribute =
        reinterpret_cast<GetAttribute>(loadedSymbol("libcuda.so.1", "cuDeviceGetAttribute"));
    if (!getAttribute)
        return;
    int value = 0;
    // CUdevice handles are device ordinals.
    if (getAttribute(&value, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, ordinal) == CUDA_SUCCESS)
        d.sharedMemPerBlockOptin = value;
    if (getAttribute(&value, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, ordinal) == CUDA_SUCCESS)
        d.reservedSharedMemPerBlock = value;
}

// The fields that plain and peer-to-peer copy records share.
template <typename CopyRecord>
wire::Memcpy copyRecord(const CopyRecord& r)
{
    wire::Memcpy m;
    m.start = ns(r.start);
    m.end = ns(r.end);
    m.bytes = r.bytes;
    m.copyKind = r.copyKind;
    m.srcKind = r.srcKind;
    m.dstKind = r.dstKind;
    m.flags = r.flags;
    m.device = r.deviceId;
    m.context = r.contextId;
    m.stream = r.streamId;
    m.graphId = r.graphId;
    return m;
}

wire::Device deviceRecord(const CUpti_ActivityDevice5& r)
{
    wire::Device d;
    d.id = r.id;
    d.name = r.name ? r.name : "";
    d.totalGlobalMem = static_cast<std::int64_t>(r.globalMemorySize);
    d.computeMajor = static_cast<std::int32_t>(r.computeCapabilityMajor);
    d.computeMinor = static_cast<std::int32_t>(r.computeCapabilityMinor);
    d.numSms = static_cast<std::int32_t>(r.numMultiprocessors);
    d.maxThreadsPerBlock = static_cast<std::int32_t>(r.maxThreadsPerBlock);
    d.warpSize = static_cast<std::int32_t>(r.numThreadsPerWarp);
    d.maxWarpsPerMultiprocessor = static_cast<std::int32_t>(r.maxWarpsPerMultiprocessor);
    d.maxThreadsPerMultiprocessor = d.maxWarpsPerMultiprocessor * d.warpSize;
    d.maxBlocksPerMultiprocessor = static_cast<std::int32_t>(r.maxBlocksPerMultiprocessor);
    d.regsPerBlock = static_cast<std::int32_t>(r.maxRegistersPerBlock);
    d.regsPerMultiprocessor = static_cast<std::int32_t>(r.maxRegistersPerMultiprocessor);
    d.sharedMemPerBlock = r.maxSharedMemoryPerBlock;
    d.sharedMemPerMultiprocessor = r.maxSharedMemoryPerMultiprocessor;
    queryDriverAttributes(static_cast<int>(r.id), d);
    return d;
}

std::uint64_t threadOf(CUpti_ActivityObjectKind kind, const CUpti_ActivityObjectKindId& id)
{
    return kind == CUPTI_ACTIVITY_OBJECT_THREAD ? id.pt.threadId : 0;
}

} // namespace

bool isTracedDriverCall(std::string_view name)
{
    // kineto shows cuLaunchKernel(Ex) and cuMem{Create,Map,Unmap,Release,...}; we also keep the
    // driver's copies, memsets and waits, which JAX, CuPy and Triton issue without the runtime.
    constexpr std::string_view kTraced[] = {
        "cuLaunch",         "cuMemcpy",           "cuMemset",        "cuMemAlloc",          "cuMemFree",
        "cuMemCreate",      "cuMemMap",           "cuMemUnmap",      "cuMemRelease",        "cuMemExportTo",
        "cuMemImportFrom",  "cuMemPrefetch",      "cuGraphLaunch",   "cuStreamSynchronize", "cuStreamWaitEvent",
        "cuCtxSynchronize", "cuEventSynchronize", "cuProfilerStart", "cuProfilerStop",
    };
    for (const auto prefix : kTraced) {
        if (name.starts_with(prefix))
            return true;
    }
    return false;
}

void decodeCuptiRecord(const CUpti_Activity& record, ActivitySink& sink)
{
    switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto& r = reinterpret_cast<const CUpti_ActivityKernel10&>(record);
        KernelActivity a;
        wire::Kernel& k = a.record;
        k.start = ns(r.start);
        k.end = ns(r.end);
        k.queued = r.queued == CUPTI_TIMESTAMP_UNKNOWN ? 0 : ns(r.queued);
        k.device = r.deviceId;
        k.context = r.contextId;
        k.stream = r.streamId;
        k.correlation = r.correlationId;
        k.grid[0] = r.gridX;
        k.grid[1] = r.gridY;
        k.grid[2] = r.gridZ;
        k.block[0] = r.blockX;
        k.block[1] = r.blockY;
        k.block[2] = r.blockZ;
        k.cluster[0] = static_cast<std::int32_t>(r.clusterX);
        k.cluster[1] = static_cast<std::int32_t>(r.clusterY);
        k.cluster[2] = static_cast<std::int32_t>(r.clusterZ);
        k.registersPerThread = r.registersPerThread;
        k.staticSharedMemory = r.staticSharedMemory;
        k.dynamicSharedMemory = r.dynamicSharedMemory;
        k.graphId = r.graphId;
        k.graphNodeId = r.graphNodeId;
        a.name = r.name;
        sink.kernel(a);
        return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto& r = reinterpret_cast<const CUpti_ActivityMemcpy6&>(record);
        wire::Memcpy m = copyRecord(r);
        // Observed 0 in correlationId on CUDA 13: the copy then carries the runtime id.
        m.correlation = r.correlationId ? r.correlationId : r.runtimeCorrelationId;
        m.srcDevice = m.dstDevice = r.deviceId;
        sink.memcpy(m);
        return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        const auto& r = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4&>(record);
        wire::Memcpy m = copyRecord(r);
        m.correlation = r.correlationId;
        m.srcDevice = r.srcDeviceId;
        m.dstDevice = r.dstDeviceId;
        sink.memcpy(m);
        return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto& r = reinterpret_cast<const CUpti_ActivityMemset4&>(record);
        wire::Memset m;
        m.start = ns(r.start);
        m.end = ns(r.end);
        m.bytes = r.bytes;
        m.value = r.value;
        m.memoryKind = r.memoryKind;
        m.flags = r.flags;
        m.device = r.deviceId;
        m.context = r.contextId;
        m.stream = r.streamId;
        m.correlation = r.correlationId;
        m.graphId = r.graphId;
        sink.memset(m);
        return;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto& r = reinterpret_cast<const CUpti_ActivityAPI&>(record);
        wire::Api a;
        a.start = ns(r.start);
        a.end = ns(r.end);
        a.domain = static_cast<std::uint8_t>(record.kind == CUPTI_ACTIVITY_KIND_RUNTIME ? wire::ApiDomain::Runtime
                                                                                        : wire::ApiDomain::Driver);
        a.cbid = r.cbid;
        a.correlation = r.correlationId;
        a.threadId = r.threadId;
        a.returnValue = static_cast<std::int32_t>(r.returnValue);
        sink.api(a);
        return;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const auto& r = reinterpret_cast<const CUpti_ActivitySynchronization2&>(record);
        wire::Sync s;
        s.start = ns(r.start);
        s.end = ns(r.end);
        s.type = static_cast<std::uint32_t>(r.type);
        s.context = r.contextId;
        s.stream = r.streamId;
        s.event = r.cudaEventId;
        s.correlation = r.correlationId;
        sink.sync(s);
        return;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
        const auto& r = reinterpret_cast<const CUpti_ActivityMarker2&>(record);
        MarkerActivity a;
        a.record.time = ns(r.timestamp);
        a.record.id = r.id;
        a.record.flags = static_cast<std::uint32_t>(r.flags);
        a.record.threadId = threadOf(r.objectKind, r.objectId);
        a.name = r.name;
        a.domain = r.domain;
        sink.marker(a);
        return;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        const auto& r = reinterpret_cast<const CUpti_ActivityOverhead3&>(record);
        wire::Overhead o;
        o.start = ns(r.start);
        o.end = ns(r.end);
        o.kind = static_cast<std::uint32_t>(r.overheadKind);
        o.threadId = threadOf(r.objectKind, r.objectId);
        sink.overhead(o);
        return;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE:
        sink.device(deviceRecord(reinterpret_cast<const CUpti_ActivityDevice5&>(record)));
        return;
    default: sink.unknownKind(); return;
    }
}

std::uint32_t CuptiActivityApi::loadedVersion()
{
    std::uint32_t version = 0;
    cuptiGetVersion(&version);
    return version;
}

std::int64_t CuptiActivityApi::timestampNs()
{
    return m_realtime.load(std::memory_order_relaxed) ? realtimeNs() : cuptiNs();
}

// Both may be called before cuInit finished: they only report what the library is.
std::int32_t CuptiActivityApi::driverVersion()
{
    using GetVersion = CUresult (*)(int*);
    const auto get = reinterpret_cast<GetVersion>(loadedSymbol("libcuda.so.1", "cuDriverGetVersion"));
    int version = 0;
    return get && get(&version) == CUDA_SUCCESS ? version : 0;
}

std::int32_t CuptiActivityApi::runtimeVersion()
{
    // A shared libcudart (torch's) is visible here; a statically linked one is not (0).
    using GetVersion = int (*)(int*);
    const auto get = reinterpret_cast<GetVersion>(dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion"));
    int version = 0;
    return get && get(&version) == 0 ? version : 0;
}

ApiResult CuptiActivityApi::subscribe()
{
    const CUptiResult subscribed = cuptiSubscribe(&m_subscriber, ignoreCallback, nullptr);
    if (subscribed == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        return {ApiResult::Status::InUse, "cuptiSubscribe: another subscriber owns CUPTI"};
    if (subscribed != CUPTI_SUCCESS)
        return failure("cuptiSubscribe", subscribed);
    return {};
}

void CuptiActivityApi::unsubscribe()
{
    if (m_subscriber)
        cuptiUnsubscribe(m_subscriber);
    m_subscriber = nullptr;
}

ApiResult CuptiActivityApi::enable(BufferRequestedFn requested, BufferCompletedFn completed,
                                   const ActivitySelection& selection)
{
    g_requested = requested;
    g_completed = completed;
    m_realtime.store(!selection.cuptiClock && cuptiClockIsRealtime(), std::memory_order_relaxed);
    if (selection.systemThreadIds)
        cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    std::uint8_t zeroed = 1;
    std::size_t zeroedSize = sizeof zeroed;
    cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &zeroedSize, &zeroed);
    const CUptiResult result = cuptiActivityRegisterCallbacks(requestedTrampoline, completedTrampoline);
    if (result != CUPTI_SUCCESS)
        return failure("cuptiActivityRegisterCallbacks", result);
    for (const auto kind : kKinetoKinds) {
        if (ApiResult enabled = enableKind(kind); !enabled.ok())
            return enabled;
    }
    if (!selection.kinetoKindsOnly) {
        for (const auto kind : kExtraKinds) {
            if (ApiResult enabled = enableKind(kind); !enabled.ok())
                return enabled;
        }
    }
    cuptiActivityEnableRuntimeApi(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, 0);
    for (const auto cbid : kNoisyDriverCalls)
        cuptiActivityEnableDriverApi(cbid, 0);
    if (!selection.allApiCalls) {
        for (const auto cbid : kUnshownRuntimeCalls)
            cuptiActivityEnableRuntimeApi(cbid, 0);
        for (CUpti_CallbackId cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid) {
            const char* name = nullptr;
            if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) == CUPTI_SUCCESS && name
                && !isTracedDriverCall(name))
                cuptiActivityEnableDriverApi(cbid, 0);
        }
    }
    return {};
}

void CuptiActivityApi::disable()
{
    for (const auto kind : kKinetoKinds)
        cuptiActivityDisable(kind);
    for (const auto kind : kExtraKinds)
        cuptiActivityDisable(kind); // harmless where it was not enabled
}

void CuptiActivityApi::flush(bool forced) { cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0); }

std::size_t CuptiActivityApi::droppedRecords(void* context, std::uint32_t streamId)
{
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(static_cast<CUcontext>(context), streamId, &dropped) != CUPTI_SUCCESS)
        return 0;
    return dropped;
}

void CuptiActivityApi::decode(const std::uint8_t* buffer, std::size_t validBytes, ActivitySink& sink)
{
    // CUPTI's iterator takes a non-const buffer but only reads it.
    auto* bytes = const_cast<std::uint8_t*>(buffer);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(bytes, validBytes, &record) == CUPTI_SUCCESS)
        decodeCuptiRecord(*record, sink);
}

std::string CuptiActivityApi::callbackName(wire::ApiDomain domain, std::uint32_t cbid)
{
    const CUpti_CallbackDomain cuptiDomain =
        domain == wire::ApiDomain::Runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    const char* name = nullptr;
    if (cuptiGetCallbackName(cuptiDomain, cbid, &name) != CUPTI_SUCCESS || !name)
        return {};
    return name;
}

} // namespace ks::injection
