#pragma once
// The Overview's step-time breakdown (docs/gpu-metrics.md §5): each step's time claimed by
// Kernel, Memcpy, Memset, Communication, Runtime, DataLoader and CPU Exec in that order,
// the rest being Other.
#include "core/facts/stepwindows.h"

#include <array>
#include <string_view>
#include <vector>

namespace ks::gpu {

enum class StepRole : std::uint8_t {
    Kernel,
    Memcpy,
    Memset,
    Communication,
    Runtime,
    DataLoader,
    CpuExec,
    Other,
};
inline constexpr std::size_t kStepRoleCount = 8;
std::string_view stepRoleName(StepRole role); // "Kernel", ..., "CPU Exec", "Other"

struct StepBreakdownRow {
    std::string name; // step number, or "Average"
    TimeNs start = 0, end = 0;
    std::array<double, kStepRoleCount> parts{}; // ns (averages are fractional)
    double total = 0.0; // ns
    double percent(StepRole role) const; // of total, 0 when total is 0
};

struct StepBreakdown {
    std::vector<StepBreakdownRow> steps;
    StepBreakdownRow average;
    // The plugin shows Kernel/Memcpy/Memset/Runtime only for traces with GPU activity, and
    // Communication only when there is some.
    bool hasGpuColumns = false;
    bool hasCommunication = false;
};

struct BreakdownOptions {
    // The plugin resets the free time when a role has used all of it, so later roles
    // count whole again (§5 quirk). Off: a role never claims more than is left.
    bool pluginFreeTimeReset = false;
};

// `windows` must come from the same trace; their steps decide whether GPU-side
// ProfilerStep copies count as steps (GpuStepAnnotations::AsSteps) or are left out.
StepBreakdown computeStepBreakdown(const Trace& trace, const std::vector<facts::PluginKind>& kinds,
                                   const facts::PluginWindows& windows, const BreakdownOptions& options = {});

} // namespace ks::gpu
