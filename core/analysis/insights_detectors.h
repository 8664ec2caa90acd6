#pragma once
// Internal to the insights: what the detectors share, and the detectors themselves (one
// function per finding id, grouped by what they look at: insights_host.cpp for host-side
// findings, insights_gpu.cpp for kernels and idle gaps).
#include "core/analysis/insights.h"
#include "core/gpu/intervalset.h"
#include "core/gpu/tensorcores.h"

#include <optional>

namespace ks::analysis::detail {

// Per-trace inputs of the detectors, computed once.
struct InsightContext {
    const facts::TraceFacts& facts;
    const Trace& trace;
    double stepCount = 1.0;
    double meanStepNs = 0.0;
    // GPUs with work in the trace (a merged file of several ranks, a process on several
    // devices). GPU time summed over them is reported per GPU, as their mean.
    double gpuCount = 1.0;
    // Host calls that block the CPU on the GPU inside steps (not the trailing sync after
    // the last launch): synchronize calls and blocking device-to-pageable copies.
    std::vector<SliceId> hostSyncs;
    // DataLoader ranges on the host (their union), inside steps.
    gpu::IntervalSet dataLoading;
    std::vector<SliceId> dataLoaderSlices;

    PeakOverrides peaks; // the user's roofs over the datasheet's (low-gemm-efficiency)

    explicit InsightContext(const facts::TraceFacts& f, PeakOverrides userPeaks = {});
    double perStepUs(double totalNs) const { return totalNs / stepCount / 1000.0; }
    // The same for GPU time summed over the trace's GPUs: per GPU (their mean), so that its
    // share of the step stays within 100 % however many GPUs ran.
    double gpuStepUs(double totalGpuNs) const { return perStepUs(totalGpuNs / gpuCount); }
    double shareOf(double perStepUs) const { return meanStepNs > 0 ? perStepUs * 1000.0 / meanStepNs : 0.0; }
    // Fills time, share and severity from the total time at stake over all steps.
    void setTime(Insight& insight, double totalNs) const;
    // The same for GPU time summed over the trace's GPUs (see gpuStepUs).
    void setGpuTime(Insight& insight, double totalGpuNs) const { setTime(insight, totalGpuNs / gpuCount); }
    // True when a host slice lies inside a step (always true without steps).
    bool hostInSteps(SliceId s) const;
    // True when a GPU op belongs to a step.
    bool deviceInSteps(SliceId s) const { return facts.deviceStepOf(s) >= 0; }
};

// A GPU idle gap inside a step and why it happened.
struct IdleGap {
    TimeNs start = 0, end = 0;
    IdleCause cause = IdleCause::Unknown;
    SliceId causeSlice = kNoSlice; // the DataLoader range, sync call or launch behind it
    std::uint32_t track = kNoIndex; // the GPU stream whose op ended the gap
};
std::vector<IdleGap> findIdleGaps(const InsightContext& context);

std::optional<Insight> detectHostSync(const InsightContext& context, const std::vector<IdleGap>& gaps);
std::optional<Insight> detectPageableCopy(const InsightContext& context);
std::optional<Insight> detectMemcpyDtod(const InsightContext& context);
std::optional<Insight> detectSlowDataLoader(const InsightContext& context);
std::optional<Insight> detectFp32Gemm(const InsightContext& context);
std::optional<Insight> detectLowOccupancy(const InsightContext& context);
std::optional<Insight> detectLowGemmEfficiency(const InsightContext& context); // insights_gemm.cpp
std::optional<Insight> detectGpuIdle(const InsightContext& context, const std::vector<IdleGap>& gaps);
std::optional<Insight> detectLaunchBound(const InsightContext& context, const std::vector<IdleGap>& gaps);
// Memory kept step after step by the same ops (insights_memory.cpp).
std::optional<Insight> detectMemoryGrowth(const InsightContext& context);
// Across the traces opened together (ranks of one run): the rank that makes the others wait.
std::optional<Insight> detectStraggler(std::span<const std::shared_ptr<const facts::TraceFacts>> traces);

// printf into a std::string (titles with numbers); µs per step as "1.23 ms".
std::string printfString(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string formatUs(double us);

// Kernel-name rules (docs: insights-notes §2), shared with the Operators table.
using gpu::isFp32GemmKernel;
// "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize" and driver twins.
bool isSyncCall(std::string_view name);

} // namespace ks::analysis::detail
