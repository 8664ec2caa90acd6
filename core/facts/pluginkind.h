#pragma once
// The event kinds the TensorBoard profiler plugin distinguished (by `cat`, case-insensitive),
// as listed in docs/gpu-metrics.md §1. The GPU metrics and the step breakdown use only these;
// everything else (cuda_driver, overhead, python_function, ...) is ignored.
#include "core/model/trace.h"

#include <string_view>
#include <vector>

namespace ks::facts {

enum class PluginKind : std::uint8_t {
    None,
    Kernel,
    Memcpy,
    Memset,
    Runtime,
    Operator,
    Annotation,
    GpuAnnotation, // gpu_user_annotation: an annotation mirrored onto a stream
    Python,
    TraceSpan,
};

PluginKind pluginKindOf(std::string_view category);

inline bool isDeviceKind(PluginKind k)
{
    return k == PluginKind::Kernel || k == PluginKind::Memcpy || k == PluginKind::Memset;
}

// Kind of every slice of the trace, computed once per distinct category string.
std::vector<PluginKind> classifySlices(const Trace& trace);

// "ProfilerStep#12" -> 12; -1 if the name is not a step name.
long long profilerStepNumber(std::string_view name);

} // namespace ks::facts
