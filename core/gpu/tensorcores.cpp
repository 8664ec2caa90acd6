#include "core/gpu/tensorcores.h"

#include <algorithm>
#include <string>

namespace ks::gpu {

namespace {

// ASCII only, inline: std::tolower is a library call per byte, and kernel names run to hundreds
// of bytes (the insights ask about every kernel: 3 % of summarizing a rank went here).
std::string lowered(std::string_view name)
{
    std::string out(name);
    for (char& c : out)
        c = c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
    return out;
}

bool containsAny(std::string_view name, std::initializer_list<std::string_view> needles)
{
    return std::any_of(needles.begin(), needles.end(),
                       [&](std::string_view needle) { return name.find(needle) != std::string_view::npos; });
}

bool isMatrixKernel(std::string_view lowerName)
{
    return containsAny(lowerName, {"gemm", "gemv", "conv", "cutlass", "xmma", "nvjet", "sdpa", "flash", "fmha"});
}

bool hasTensorCoreMarker(std::string_view lowerName)
{
    return containsAny(lowerName,
                       {"tf32", "wgmma", "hmma", "nvjet", "bf16", "f16", "e4m3", "e5m2", "imma", "s1688", "s16816",
                        "h884", "h1688", "16816"});
}

} // namespace

bool usesTensorCores(std::string_view kernelName)
{
    const std::string name = lowered(kernelName);
    return isMatrixKernel(name) && hasTensorCoreMarker(name);
}

bool isFp32GemmKernel(std::string_view kernelName)
{
    const std::string name = lowered(kernelName);
    if (!containsAny(name, {"gemm", "gemv", "conv", "cutlass", "xmma"}) || hasTensorCoreMarker(name))
        return false;
    return containsAny(name, {"sgemm", "simt", "ffma", "f32f32", "<float,"});
}

} // namespace ks::gpu
