#pragma once
#include <string>
#include <string_view>

namespace ks::collector {

// CUPTI reports kernel names mangled (`_Z4busyPfi`). Only Itanium-mangled names (`_Z…`)
// are demangled; cuBLAS/Triton names and names whose demangling fails are kept as they are.
// Names longer than 8192 characters are not demangled (as kineto does).
std::string demangleKernelName(std::string_view name);

} // namespace ks::collector
