#include "core/facts/pluginkind.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

namespace ks::facts {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

} // namespace

PluginKind pluginKindOf(std::string_view category)
{
    const std::string c = lower(category);
    if (c == "kernel")
        return PluginKind::Kernel;
    if (c == "gpu_memcpy" || c == "memcpy")
        return PluginKind::Memcpy;
    if (c == "gpu_memset" || c == "memset")
        return PluginKind::Memset;
    if (c == "cuda_runtime" || c == "runtime" || c == "mtia_runtime" || c == "glow_runtime" || c == "xpu_runtime"
        || c == "privateuse1_runtime")
        return PluginKind::Runtime;
    if (c == "cpu_op" || c == "operator")
        return PluginKind::Operator;
    if (c == "user_annotation")
        return PluginKind::Annotation;
    if (c == "gpu_user_annotation")
        return PluginKind::GpuAnnotation;
    if (c == "python")
        return PluginKind::Python;
    if (c == "trace")
        return PluginKind::TraceSpan;
    return PluginKind::None;
}

std::vector<PluginKind> classifySlices(const Trace& trace)
{
    const auto& slices = trace.slices();
    std::vector<PluginKind> byCategory(trace.strings().size(), PluginKind::None);
    std::vector<bool> known(byCategory.size(), false);
    std::vector<PluginKind> kinds(slices.size());
    for (std::size_t s = 0; s < slices.size(); ++s) {
        const StringId cat = slices.category[s];
        if (!known[cat]) {
            byCategory[cat] = pluginKindOf(trace.str(cat));
            known[cat] = true;
        }
        kinds[s] = byCategory[cat];
    }
    return kinds;
}

long long profilerStepNumber(std::string_view name)
{
    constexpr std::string_view kPrefix = "ProfilerStep#";
    if (name.substr(0, kPrefix.size()) != kPrefix)
        return -1;
    const std::string_view digits = name.substr(kPrefix.size());
    long long n = -1;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || n < 0)
        return -1;
    return n;
}

} // namespace ks::facts
