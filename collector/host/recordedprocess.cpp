#include "collector/host/recordedprocess.h"

namespace ks::collector {

std::string_view categoryName(EventCategory category)
{
    switch (category) {
    case EventCategory::Runtime: return "cuda_runtime";
    case EventCategory::Driver: return "cuda_driver";
    case EventCategory::Kernel: return "kernel";
    case EventCategory::Memcpy: return "gpu_memcpy";
    case EventCategory::Memset: return "gpu_memset";
    case EventCategory::Sync: return "cuda_sync";
    case EventCategory::Annotation: return "user_annotation";
    case EventCategory::Overhead: return "overhead";
    case EventCategory::CpuOp: return "cpu_op";
    case EventCategory::GpuAnnotation: return "gpu_user_annotation";
    }
    return "";
}

bool isGpuCategory(EventCategory category)
{
    return category == EventCategory::Kernel || category == EventCategory::Memcpy || category == EventCategory::Memset
        || category == EventCategory::Sync || category == EventCategory::GpuAnnotation;
}

namespace {

template <class T>
void appendTail(std::vector<T>& copy, const std::vector<T>& recorded)
{
    if (copy.size() < recorded.size())
        copy.insert(copy.end(), recorded.begin() + static_cast<std::ptrdiff_t>(copy.size()), recorded.end());
}

} // namespace

void RecordedProcess::catchUp(const RecordedProcess& recorded)
{
    hello = recorded.hello;
    state = recorded.state;
    appendTail(names, recorded.names);
    appendTail(slices, recorded.slices);
    appendTail(gpuOps, recorded.gpuOps);
    appendTail(ops, recorded.ops);
    appendTail(instants, recorded.instants);
    appendTail(flows, recorded.flows);
    devices = recorded.devices; // a device record may replace an earlier one
    errors = recorded.errors;
    threadNames = recorded.threadNames;
    dropped = recorded.dropped;
    goodbye = recorded.goodbye;
    counts = recorded.counts;
    distributed = recorded.distributed;
}

std::string RecordedProcess::executableName() const
{
    const auto slash = hello.executable.rfind('/');
    return slash == std::string::npos ? hello.executable : hello.executable.substr(slash + 1);
}

std::string RecordedProcess::displayName() const { return executableName() + " (" + std::to_string(hello.pid) + ")"; }

std::uint64_t RecordedProcess::droppedTotal() const
{
    return dropped.cuptiRecords + dropped.zeroTimestamps + counts.zeroTimestamps;
}

DeviceProperties toDeviceProperties(const wire::Device& d)
{
    DeviceProperties p;
    p.id = static_cast<int>(d.id);
    p.name = d.name;
    p.totalGlobalMem = d.totalGlobalMem;
    p.computeMajor = d.computeMajor;
    p.computeMinor = d.computeMinor;
    p.numSms = d.numSms;
    p.maxThreadsPerBlock = d.maxThreadsPerBlock;
    p.maxThreadsPerMultiprocessor = d.maxThreadsPerMultiprocessor;
    p.regsPerBlock = d.regsPerBlock;
    p.regsPerMultiprocessor = d.regsPerMultiprocessor;
    p.warpSize = d.warpSize;
    p.sharedMemPerBlock = d.sharedMemPerBlock;
    p.sharedMemPerMultiprocessor = d.sharedMemPerMultiprocessor;
    p.sharedMemPerBlockOptin = d.sharedMemPerBlockOptin;
    return p;
}

} // namespace ks::collector
