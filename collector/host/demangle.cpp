#include "collector/host/demangle.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace ks::collector {

std::string demangleKernelName(std::string_view name)
{
    constexpr std::size_t kMaxMangledLength = 8192;
    if (name.size() < 3 || name.size() > kMaxMangledLength || !name.starts_with("_Z"))
        return std::string(name);
    std::string mangled(name); // not const: returned, it moves
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> demangled(
        abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
    if (status != 0 || !demangled)
        return mangled;
    return demangled.get();
}

} // namespace ks::collector
