#pragma once
// The names kineto gives CUPTI's records, for the collector's events to read like a
// torch.profiler trace: copy and memory kinds, sync types, overhead kinds, API names.
#include <cstdint>
#include <string>
#include <string_view>

namespace ks::collector {

std::string_view copyKindName(std::uint8_t kind); // "HtoD"
std::string_view memoryKindName(std::uint32_t kind); // "Pinned"
std::string_view syncName(std::uint32_t type); // "Stream Sync"
std::string_view overheadName(std::uint32_t kind); // "CUPTI Buffer Flush"
// CUPTI callback names carry the API version ("cudaLaunchKernel_v7000", "cuMemcpyHtoD_v2").
std::string stripApiVersion(std::string name);

} // namespace ks::collector
