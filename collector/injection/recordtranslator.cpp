#include "collector/injection/recordtranslator.h"

#include <cstring>
#include <cuda.h>
#include <dlfcn.h>

namespace ks::injection {
namespace {

std::int64_t ns(std::uint64_t t) { return static_cast<std::int64_t>(t); }

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
    return m;
}

// Two limits the DEVICE record lacks. Queried through the driver the application already
// loaded; called on our sender thread, never inside an application's CUDA call.
void queryDriverAttributes(int ordinal, wire::Device& d)
{
    using GetAttribute = CUresult (*)(int*, CUdevice_attribute, CUdevice);
    static const auto getAttribute = []() -> GetAttribute {
        void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
        return driver ? reinterpret_cast<GetAttribute>(dlsym(driver, "cuDeviceGetAttribute")) : nullptr;
    }();
    if (!getAttribute)
        return;
    int value = 0;
    // CUdevice handles are device ordinals.
    if (getAttribute(&value, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, ordinal) == CUDA_SUCCESS)
        d.sharedMemPerBlockOptin = value;
    if (getAttribute(&value, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, ordinal) == CUDA_SUCCESS)
        d.reservedSharedMemPerBlock = value;
}

} // namespace

void RecordTranslator::translate(std::uint8_t* buffer, std::size_t validBytes, std::vector<std::uint8_t>& out)
{
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validBytes, &record) == CUPTI_SUCCESS)
        translateRecord(record, out);
}

std::uint32_t RecordTranslator::define(std::string text, std::vector<std::uint8_t>& out)
{
    wire::StringDef def;
    def.id = m_nextString++;
    def.text = std::move(text);
    wire::appendFrame(out, def);
    return def.id;
}

std::uint32_t RecordTranslator::kernelName(const char* name, std::vector<std::uint8_t>& out)
{
    if (!name)
        return 0;
    auto it = m_kernelNames.find(name);
    if (it != m_kernelNames.end() && it->second.second == name)
        return it->second.first;
    const std::uint32_t id = text(name, out);
    m_kernelNames[name] = {id, name};
    return id;
}

std::uint32_t RecordTranslator::text(const char* text, std::vector<std::uint8_t>& out)
{
    if (!text)
        return 0;
    const std::string_view key(text);
    const auto it = m_texts.find(key);
    if (it != m_texts.end())
        return it->second;
    const std::uint32_t id = define(std::string(key), out);
    m_texts.emplace(key, id);
    return id;
}

std::uint32_t RecordTranslator::apiName(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                        std::vector<std::uint8_t>& out)
{
    const std::uint64_t key = static_cast<std::uint64_t>(domain) << 32 | cbid;
    const auto it = m_apiNames.find(key);
    if (it != m_apiNames.end())
        return it->second;
    const char* name = nullptr;
    std::string text = cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name
        ? std::string(name)
        : "cbid " + std::to_string(cbid);
    const std::uint32_t id = define(std::move(text), out);
    m_apiNames.emplace(key, id);
    return id;
}

void RecordTranslator::device(const CUpti_ActivityDevice5& r, std::vector<std::uint8_t>& out)
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
    wire::appendFrame(out, d);
}

void RecordTranslator::translateRecord(const CUpti_Activity* record, std::vector<std::uint8_t>& out)
{
    ++m_records;
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto& r = *reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        if (r.start == 0 && r.end == 0) {
            ++m_zeroTimestamps;
            return;
        }
        wire::Kernel k;
        k.start = ns(r.start);
        k.end = ns(r.end);
        k.queued = r.queued == CUPTI_TIMESTAMP_UNKNOWN ? 0 : ns(r.queued);
        k.device = r.deviceId;
        k.context = r.contextId;
        k.stream = r.streamId;
        k.correlation = r.correlationId;
        k.name = kernelName(r.name, out);
        k.grid[0] = r.gridX; k.grid[1] = r.gridY; k.grid[2] = r.gridZ;
        k.block[0] = r.blockX; k.block[1] = r.blockY; k.block[2] = r.blockZ;
        k.cluster[0] = static_cast<std::int32_t>(r.clusterX);
        k.cluster[1] = static_cast<std::int32_t>(r.clusterY);
        k.cluster[2] = static_cast<std::int32_t>(r.clusterZ);
        k.registersPerThread = r.registersPerThread;
        k.staticSharedMemory = r.staticSharedMemory;
        k.dynamicSharedMemory = r.dynamicSharedMemory;
        k.graphId = r.graphId;
        k.graphNodeId = r.graphNodeId;
        wire::appendFrame(out, k);
        return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto& r = *reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        wire::Memcpy m = copyRecord(r);
        // Observed 0 in runtimeCorrelationId on CUDA 13: the copy carries the runtime id.
        m.correlation = r.correlationId ? r.correlationId : r.runtimeCorrelationId;
        m.srcDevice = m.dstDevice = r.deviceId;
        m.graphId = r.graphId;
        wire::appendFrame(out, m);
        return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        const auto& r = *reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
        wire::Memcpy m = copyRecord(r);
        m.correlation = r.correlationId;
        m.srcDevice = r.srcDeviceId;
        m.dstDevice = r.dstDeviceId;
        m.graphId = r.graphId;
        wire::appendFrame(out, m);
        return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto& r = *reinterpret_cast<const CUpti_ActivityMemset4*>(record);
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
        wire::appendFrame(out, m);
        return;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto& r = *reinterpret_cast<const CUpti_ActivityAPI*>(record);
        const bool runtime = record->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
        wire::Api a;
        a.start = ns(r.start);
        a.end = ns(r.end);
        a.domain = static_cast<std::uint8_t>(runtime ? wire::ApiDomain::Runtime : wire::ApiDomain::Driver);
        a.cbid = r.cbid;
        a.name = apiName(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, r.cbid, out);
        a.correlation = r.correlationId;
        a.threadId = r.threadId;
        a.returnValue = static_cast<std::int32_t>(r.returnValue);
        wire::appendFrame(out, a);
        return;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const auto& r = *reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
        wire::Sync s;
        s.start = ns(r.start);
        s.end = ns(r.end);
        s.type = static_cast<std::uint32_t>(r.type);
        s.context = r.contextId;
        s.stream = r.streamId;
        s.event = r.cudaEventId;
        s.correlation = r.correlationId;
        wire::appendFrame(out, s);
        return;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
        const auto& r = *reinterpret_cast<const CUpti_ActivityMarker2*>(record);
        wire::Marker m;
        m.time = ns(r.timestamp);
        m.id = r.id;
        m.flags = static_cast<std::uint32_t>(r.flags);
        m.name = text(r.name, out);
        m.domain = text(r.domain, out);
        m.threadId = r.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? r.objectId.pt.threadId : 0;
        wire::appendFrame(out, m);
        return;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        const auto& r = *reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
        wire::Overhead o;
        o.start = ns(r.start);
        o.end = ns(r.end);
        o.kind = static_cast<std::uint32_t>(r.overheadKind);
        o.threadId = r.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? r.objectId.pt.threadId : 0;
        wire::appendFrame(out, o);
        return;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE:
        device(*reinterpret_cast<const CUpti_ActivityDevice5*>(record), out);
        return;
    default:
        ++m_undecodable;
        return;
    }
}

} // namespace ks::injection
