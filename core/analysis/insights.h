#pragma once
// Insights: what to fix in a trace, each finding with the time it costs per step, the events
// that prove it and a concrete fix. Computed from TraceFacts off the GUI thread.
//
// Finding ids are stable (the CLI's JSON and the GUI use them): host-sync, fp32-gemm,
// pageable-copy, gpu-idle, launch-bound, low-occupancy, memcpy-dtod, cpu-bound-dataloader,
// memory-growth, low-gemm-efficiency.
// "Per step" means averaged over the profiled ProfilerSteps; only what lies inside them
// counts. A trace without steps is one step.
#include "core/analysis/devicepeaks.h"
#include "core/facts/tracefacts.h"

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ks::analysis {

// Thresholds, all in one place (README "Insights" lists them; tst_insights tests them).
namespace thresholds {
// Severity by share of the mean step time: high from 10 %, medium from 3 %, else low.
inline constexpr double kHighShare = 0.10;
inline constexpr double kMediumShare = 0.03;
// gpu-idle: gaps shorter than this between GPU ops are ordinary launch spacing, not idling.
inline constexpr TimeNs kMinIdleGapNs = 10'000;
// gpu-idle is reported from this share of step time idle (in gaps of at least kMinIdleGapNs).
inline constexpr double kGpuIdleMinShare = 0.05;
// A gap is "data loading" when DataLoader ranges cover at least this fraction of it.
inline constexpr double kDataLoadingCover = 0.5;
// launch-bound: the median kernel is shorter than the median launch call, and the GPU is
// busy less than this share of the step.
inline constexpr double kLaunchBoundMaxGpuBusy = 0.5;
// low-occupancy: a kernel (by name) with at least this share of step time whose estimated
// SM efficiency (blocks per SM, capped at 1) is below kLowSmEfficiency or whose estimated
// achieved occupancy is below kLowAchievedOccupancyPct. NCCL kernels are left out (few blocks
// by design; their time is mostly waiting for other ranks).
inline constexpr double kLowOccupancyMinShare = 0.05;
inline constexpr double kLowSmEfficiency = 0.5;
inline constexpr double kLowAchievedOccupancyPct = 10.0;
// gpu-idle and launch-bound list at most this many gaps as evidence (the longest).
inline constexpr std::size_t kMaxGapEvidence = 100;
// memcpy-dtod: device-to-device copies are reported from this share of step time.
inline constexpr double kDtodMinShare = 0.01;
// cpu-bound-dataloader: the plugin's rule, DataLoader time above 5 % of the step.
inline constexpr double kDataLoaderMinShare = 0.05;
// memory-growth: ops whose allocations stay alive to the end of the trace in at least this many
// steps, together at least kMemoryGrowthMinBytes; high when a step keeps this share of the peak.
inline constexpr int kMemoryGrowthMinSteps = 2;
inline constexpr std::int64_t kMemoryGrowthMinBytes = 1 << 20;
inline constexpr double kMemoryGrowthHighShareOfPeak = 0.01;
// low-gemm-efficiency: a GEMM shape whose kernels reach under this fraction of the roof its
// inputs could run at (fp32 against TF32); reported when such GEMMs take this share of the step.
inline constexpr double kLowGemmEfficiency = 0.4;
inline constexpr double kLowGemmMinShare = 0.01;
// ... with the cause "tiny dims" under this size, and "wave quantization" when the longest
// kernel's last wave leaves the waves under this efficiency (blocks / (waves rounded up · wave)).
inline constexpr std::int64_t kTinyGemmDim = 64;
inline constexpr double kMinWaveEfficiency = 0.75;
} // namespace thresholds

enum class Severity : std::uint8_t { Low, Medium, High };
std::string_view severityName(Severity severity); // "low", "medium", "high"
Severity severityForShare(double share);

// Why the GPU sat idle in a gap (gpu-idle).
enum class IdleCause : std::uint8_t { DataLoading, HostSync, LaunchBound, Unknown };
inline constexpr std::size_t kIdleCauseCount = 4;
std::string_view idleCauseName(IdleCause cause); // "data loading", "host sync", "CPU launch-bound", "unknown"
std::string_view idleCauseKey(IdleCause cause); // "data_loading", "host_sync", "launch_bound", "unknown"

// One event that proves a finding. `slice` is the event on the timeline; an idle gap has
// its own range and the slice that explains it (the DataLoader range, the sync, the launch).
struct Evidence {
    SliceId slice = kNoSlice;
    TimeNs start = 0, duration = 0;
    std::uint32_t track = kNoIndex;
    std::string name; // the slice's name, or "GPU idle (data loading)" for a gap
    std::string context; // the op and Python frame behind it, when the trace has them
    std::int64_t bytes = -1; // copies
};

struct Insight {
    std::string id;
    Severity severity = Severity::Low;
    std::string title;
    double timeUs = 0.0; // per step
    double share = 0.0; // of the mean step time
    std::vector<Evidence> evidence; // by time
    std::string explanation;
    std::string advice;
    // Extra figures for the JSON and the details text, e.g. {"bytes_per_step", 8388608}.
    std::vector<std::pair<std::string, double>> figures;
    std::string cause; // gpu-idle: the idleCauseKey of the largest share of the idle time
    int traceIndex = 0; // which of several traces (ranks) it was found in
};

// The findings of one trace, sorted by time at stake (largest first). `peaks`: the user's roofs
// (settings, --peak-tflops/--peak-tbps) for low-gemm-efficiency, over the datasheet's.
std::vector<Insight> findInsights(const facts::TraceFacts& facts, const PeakOverrides& peaks = {});

// Several traces of one run (ranks): each trace's findings tagged with its index, plus the
// findings that need all of them together (the multi-rank `straggler` hooks in here).
std::vector<Insight> findInsights(std::span<const std::shared_ptr<const facts::TraceFacts>> traces,
                                  const PeakOverrides& peaks = {});

// --- building blocks, also used by the individual detectors (insights_*.cpp) ---

// Sorts by time at stake, largest first (ties by id, stable for the tests and the JSON).
void sortInsights(std::vector<Insight>& insights);
// Evidence for one slice: its range, track, name and the op/frame context of host calls.
Evidence evidenceFor(const facts::TraceFacts& facts, SliceId s);

} // namespace ks::analysis
