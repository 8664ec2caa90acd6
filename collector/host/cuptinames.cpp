#include "collector/host/cuptinames.h"

namespace ks::collector {

std::string_view copyKindName(std::uint8_t kind)
{
    switch (kind) {
    case 1: return "HtoD";
    case 2: return "DtoH";
    case 3: return "HtoA";
    case 4: return "AtoH";
    case 5: return "AtoA";
    case 6: return "AtoD";
    case 7: return "DtoA";
    case 8: return "DtoD";
    case 9: return "HtoH";
    case 10: return "PtoP";
    default: return "Unknown";
    }
}

std::string_view memoryKindName(std::uint32_t kind)
{
    switch (kind) {
    case 1: return "Pageable";
    case 2: return "Pinned";
    case 3: return "Device";
    case 4: return "Array";
    case 5: return "Managed";
    case 6: return "Device Static";
    case 7: return "Managed Static";
    default: return "Unknown";
    }
}

std::string_view syncName(std::uint32_t type)
{
    switch (type) {
    case 1: return "Event Sync";
    case 2: return "Stream Wait Event";
    case 3: return "Stream Sync";
    case 4: return "Context Sync";
    default: return "Sync";
    }
}

std::string_view overheadName(std::uint32_t kind)
{
    switch (kind >> 16) {
    case 1: return "CUPTI Buffer Flush";
    case 2: return "CUPTI Instrumentation";
    case 3: return "CUPTI Resource";
    case 4: return "Runtime Triggered Module Loading";
    case 5: return "Lazy Function Loading";
    case 6: return "Command Buffer Full";
    case 7: return "Activity Buffer Request";
    case 8: return "UVM Activity Init";
    default: return kind == 1 ? "Driver Compiler" : "Overhead";
    }
}

std::string stripApiVersion(std::string name)
{
    const auto pos = name.rfind("_v");
    if (pos != std::string::npos && pos + 2 < name.size()
        && name.find_first_not_of("0123456789", pos + 2) == std::string::npos)
        name.resize(pos);
    return name;
}

} // namespace ks::collector
