#include "collector/host/distributedinfo.h"

#include <charconv>
#include <fstream>
#include <iterator>
#include <string_view>

namespace ks::collector {
namespace {

std::optional<int> integerValue(const std::vector<std::string>& environment, std::string_view key)
{
    for (const auto& entry : environment) {
        if (entry.size() <= key.size() || entry.compare(0, key.size(), key) != 0 || entry[key.size()] != '=')
            continue;
        const char* begin = entry.data() + key.size() + 1;
        const char* end = entry.data() + entry.size();
        int value = 0;
        const auto [at, ec] = std::from_chars(begin, end, value);
        if (ec != std::errc() || at != end)
            return std::nullopt;
        return value;
    }
    return std::nullopt;
}

} // namespace

std::optional<DistributedInfo> distributedInfoFromEnvironment(const std::vector<std::string>& environment)
{
    const auto rank = integerValue(environment, "RANK");
    const auto worldSize = integerValue(environment, "WORLD_SIZE");
    if (!rank || !worldSize || *rank < 0 || *rank >= *worldSize)
        return std::nullopt;
    DistributedInfo info;
    info.rank = *rank;
    info.worldSize = *worldSize;
    const auto localRank = integerValue(environment, "LOCAL_RANK");
    if (localRank && *localRank >= 0)
        info.localRank = *localRank;
    return info;
}

std::vector<std::string> processEnvironment(std::int64_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> entries;
    std::size_t from = 0;
    while (from < all.size()) {
        auto nul = all.find('\0', from);
        if (nul == std::string::npos)
            nul = all.size();
        entries.emplace_back(all, from, nul - from);
        from = nul + 1;
    }
    return entries;
}

std::string_view collectiveBackend(std::string_view eventName)
{
    for (std::string_view backend : {"nccl", "gloo", "mpi", "ucc"}) {
        if (eventName.size() > backend.size() && eventName.substr(0, backend.size()) == backend
            && eventName[backend.size()] == ':')
            return backend;
    }
    if (eventName.starts_with("ncclKernel_") || eventName.starts_with("ncclDevKernel_"))
        return "nccl";
    return {};
}

std::string distributedInfoJson(const DistributedInfo& info, std::optional<std::int64_t> pid)
{
    std::string json = "{";
    if (pid)
        json += "\"pid\": " + std::to_string(*pid) + ", ";
    // Only integers and backend names of collectiveBackend: no escaping needed.
    if (!info.backend.empty())
        json += "\"backend\": \"" + info.backend + "\", ";
    json += "\"rank\": " + std::to_string(info.rank) + ", \"world_size\": " + std::to_string(info.worldSize);
    if (info.localRank >= 0)
        json += ", \"local_rank\": " + std::to_string(info.localRank);
    return json + "}";
}

} // namespace ks::collector
