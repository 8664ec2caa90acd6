// GPU-side findings: fp32-gemm, low-occupancy, gpu-idle (with its gaps' causes), launch-bound.
#include "core/analysis/insights_detectors.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

namespace ks::analysis::detail {

namespace {

bool contains(std::string_view haystack, std::string_view needle)
{
    return haystack.find(needle) != std::string_view::npos;
}

// Kernels inside steps, by start.
std::vector<SliceId> kernelsInSteps(const InsightContext& context)
{
    const auto& slices = context.trace.slices();
    std::vector<SliceId> out;
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (context.facts.kinds[s] == facts::PluginKind::Kernel && context.deviceInSteps(s))
            out.push_back(s);
    }
    std::sort(out.begin(), out.end(), [&](SliceId a, SliceId b) { return slices.start[a] < slices.start[b]; });
    return out;
}

bool isCommunicationKernel(std::string_view name)
{
    return contains(name, "nccl") || contains(name, "Nccl") || contains(name, "NCCL");
}

double median(std::vector<TimeNs> values)
{
    if (values.empty())
        return 0.0;
    const auto mid = values.begin() + std::ptrdiff_t(values.size() / 2);
    std::nth_element(values.begin(), mid, values.end());
    return double(*mid);
}

Evidence gapEvidence(const InsightContext& context, const IdleGap& gap)
{
    Evidence e;
    e.slice = gap.causeSlice;
    e.start = gap.start;
    e.duration = gap.end - gap.start;
    e.track = gap.track;
    e.name = "GPU idle (" + std::string(idleCauseName(gap.cause)) + ")";
    if (gap.causeSlice != kNoSlice)
        e.context = std::string(context.trace.str(context.trace.slices().name[gap.causeSlice]));
    return e;
}

// The longest gaps, then back in time order.
std::vector<Evidence> gapEvidence(const InsightContext& context, std::vector<IdleGap> gaps)
{
    if (gaps.size() > thresholds::kMaxGapEvidence) {
        std::nth_element(gaps.begin(), gaps.begin() + std::ptrdiff_t(thresholds::kMaxGapEvidence), gaps.end(),
                         [](const IdleGap& a, const IdleGap& b) { return a.end - a.start > b.end - b.start; });
        gaps.resize(thresholds::kMaxGapEvidence);
    }
    std::sort(gaps.begin(), gaps.end(), [](const IdleGap& a, const IdleGap& b) { return a.start < b.start; });
    std::vector<Evidence> out;
    out.reserve(gaps.size());
    for (const IdleGap& gap : gaps)
        out.push_back(gapEvidence(context, gap));
    return out;
}

} // namespace

std::optional<Insight> detectFp32Gemm(const InsightContext& context)
{
    const auto& slices = context.trace.slices();
    Insight insight;
    insight.id = "fp32-gemm";
    double fp32Ns = 0.0, kernelNs = 0.0;
    for (const SliceId s : kernelsInSteps(context)) {
        kernelNs += double(slices.duration[s]);
        if (!isFp32GemmKernel(context.trace.str(slices.name[s])))
            continue;
        fp32Ns += double(slices.duration[s]);
        insight.evidence.push_back(evidenceFor(context.facts, s));
    }
    if (insight.evidence.empty())
        return std::nullopt;
    context.setGpuTime(insight, fp32Ns);
    const double gpuShare = kernelNs > 0 ? fp32Ns / kernelNs : 0.0;
    const double perStep = double(insight.evidence.size()) / context.stepCount;
    insight.title =
        printfString("%.3g fp32 GEMM %s per step without tensor cores (%s, %.0f %% of kernel time)", perStep,
                     perStep == 1.0 ? "kernel" : "kernels", formatUs(insight.timeUs).c_str(), gpuShare * 100.0);
    insight.explanation =
        "These matrix multiplications run in full fp32 on the CUDA cores (SIMT sgemm / FFMA kernels): "
        "tensor cores, which do the same work many times faster, stay unused. PyTorch keeps TF32 off for "
        "matmul by default, so fp32 models get these kernels unless told otherwise.";
    insight.advice = "Enable TF32 (torch.backends.cuda.matmul.allow_tf32 = True, or "
                     "torch.set_float32_matmul_precision(\"high\"); torch.backends.cudnn.allow_tf32 for convolutions), "
                     "or train under torch.autocast(\"cuda\", dtype=torch.bfloat16).";
    insight.figures = {{"kernels_per_step", double(insight.evidence.size()) / context.stepCount},
                       {"share_of_kernel_time", gpuShare}};
    return insight;
}

std::optional<Insight> detectLowOccupancy(const InsightContext& context)
{
    struct Group {
        double ns = 0.0, smEfficiencyNs = 0.0, occupancyNs = 0.0, measuredNs = 0.0, occupancyMeasuredNs = 0.0;
        std::vector<SliceId> kernels;
    };
    const auto& slices = context.trace.slices();
    std::map<StringId, Group> byName;
    for (const SliceId s : kernelsInSteps(context)) {
        const GpuOpInfo* info = context.trace.gpuOpInfo(s);
        // Collectives use few blocks by design and mostly wait for other ranks.
        if (!info || info->blocksPerSm < 0.0f || isCommunicationKernel(context.trace.str(slices.name[s])))
            continue;
        Group& g = byName[slices.name[s]];
        const double d = double(slices.duration[s]);
        g.ns += d;
        g.measuredNs += d;
        g.smEfficiencyNs += d * std::min(1.0, double(info->blocksPerSm));
        if (info->estAchievedOccupancyPct >= 0.0f) {
            g.occupancyNs += d * double(info->estAchievedOccupancyPct);
            g.occupancyMeasuredNs += d;
        }
        g.kernels.push_back(s);
    }
    Insight insight;
    insight.id = "low-occupancy";
    double atStakeNs = 0.0, kernelNs = 0.0;
    std::string worst;
    double worstNs = 0.0;
    for (const auto& [name, g] : byName) {
        const double smEfficiency = g.smEfficiencyNs / g.measuredNs;
        const double occupancy = g.occupancyMeasuredNs > 0 ? g.occupancyNs / g.occupancyMeasuredNs : 100.0;
        const bool low =
            smEfficiency < thresholds::kLowSmEfficiency || occupancy < thresholds::kLowAchievedOccupancyPct;
        if (!low || context.shareOf(context.gpuStepUs(g.ns)) < thresholds::kLowOccupancyMinShare)
            continue;
        // What the idle SMs cost: the kernel time times the share of SMs left without a block.
        const double stake = smEfficiency < thresholds::kLowSmEfficiency ? g.ns * (1.0 - smEfficiency) : g.ns * 0.5;
        atStakeNs += stake;
        kernelNs += g.ns;
        if (stake > worstNs) {
            worstNs = stake;
            worst = std::string(context.trace.str(name));
        }
        for (const SliceId s : g.kernels)
            insight.evidence.push_back(evidenceFor(context.facts, s));
    }
    if (insight.evidence.empty())
        return std::nullopt;
    std::sort(insight.evidence.begin(), insight.evidence.end(),
              [](const Evidence& a, const Evidence& b) { return a.start < b.start; });
    context.setGpuTime(insight, atStakeNs);
    if (worst.size() > 60)
        worst = worst.substr(0, 57) + "...";
    insight.title = printfString("Kernels that leave the GPU underfilled (%s per step in them), e.g. %s",
                                 formatUs(context.gpuStepUs(kernelNs)).c_str(), worst.c_str());
    insight.explanation =
        "These kernels take a large share of the step but launch fewer blocks than the GPU has SMs, or "
        "keep few warps resident per SM (low estimated achieved occupancy): much of the GPU idles while "
        "they run. The time at stake is their time times the share of SMs without work (half their time "
        "when only the occupancy is low).";
    insight.advice = "Give them more parallel work: larger batches or fused batched ops (torch.bmm, foreach/fused "
                     "optimizers), fewer registers or less shared memory per block in custom kernels, or "
                     "torch.compile to fuse small kernels into larger ones.";
    insight.figures = {{"kernel_time_us", context.gpuStepUs(kernelNs)}};
    return insight;
}

std::vector<IdleGap> findIdleGaps(const InsightContext& context)
{
    const Trace& trace = context.trace;
    const auto& slices = trace.slices();
    const facts::TraceFacts& facts = context.facts;
    // Device ops per GPU process, by start.
    std::map<std::uint32_t, std::vector<SliceId>> opsByDevice;
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (facts::isDeviceKind(facts.kinds[s]))
            opsByDevice[trace.tracks()[trace.trackOf(s)].process].push_back(s);
    }
    TimeNs longestSync = 0;
    for (const SliceId s : context.hostSyncs)
        longestSync = std::max(longestSync, slices.duration[s]);

    std::vector<IdleGap> gaps;
    for (auto& [process, ops] : opsByDevice) {
        std::sort(ops.begin(), ops.end(), [&](SliceId a, SliceId b) { return slices.start[a] < slices.start[b]; });
        std::vector<gpu::IntervalSet::Interval> busy;
        busy.reserve(ops.size());
        for (const SliceId s : ops)
            busy.emplace_back(slices.start[s], slices.end(s));
        const gpu::IntervalSet busySet = gpu::IntervalSet::unionOf(std::move(busy));
        if (busySet.empty())
            continue; // only zero-length ops: nothing to measure gaps against
        const TimeNs deviceStart = busySet.intervals().front().first;
        const TimeNs deviceEnd = busySet.intervals().back().second;
        for (const auto& step : facts.windows.steps) {
            // Without ProfilerSteps only the time between the first and last GPU op counts.
            const TimeNs from = facts.hasSteps() ? step.start : std::max(step.start, deviceStart);
            const TimeNs to = facts.hasSteps() ? step.end : deviceEnd;
            if (from >= to)
                continue;
            const auto idle = gpu::IntervalSet::unionOf({{from, to}}).subtracted(busySet);
            for (const auto& [a, b] : idle.intervals()) {
                if (b - a < thresholds::kMinIdleGapNs)
                    continue;
                IdleGap gap{a, b, IdleCause::Unknown, kNoSlice, kNoIndex};
                const auto next = std::lower_bound(ops.begin(), ops.end(), b,
                                                   [&](SliceId s, TimeNs t) { return slices.start[s] < t; });
                SliceId nextOp = next != ops.end() ? *next : kNoSlice;
                gap.track = trace.trackOf(nextOp != kNoSlice ? nextOp : ops.back());
                if (context.dataLoading.measureWithin(a, b) >= TimeNs(double(b - a) * thresholds::kDataLoadingCover)) {
                    gap.cause = IdleCause::DataLoading;
                    for (const SliceId d : context.dataLoaderSlices) {
                        if (slices.start[d] < b && slices.end(d) > a) {
                            gap.causeSlice = d;
                            break;
                        }
                    }
                } else {
                    // A sync that was under way while the GPU ran dry.
                    auto it = std::lower_bound(context.hostSyncs.begin(), context.hostSyncs.end(), b,
                                               [&](SliceId s, TimeNs t) { return slices.start[s] < t; });
                    while (it != context.hostSyncs.begin()) {
                        --it;
                        if (slices.start[*it] + longestSync <= a)
                            break;
                        if (slices.end(*it) > a) {
                            gap.cause = IdleCause::HostSync;
                            gap.causeSlice = *it;
                            break;
                        }
                    }
                }
                if (gap.cause == IdleCause::Unknown && nextOp != kNoSlice) {
                    // The GPU waited for the launch of its next op: the CPU was still issuing it.
                    const SliceId launch = facts.links.launchOf(nextOp);
                    if (launch != kNoSlice && slices.end(launch) > a) {
                        gap.cause = IdleCause::LaunchBound;
                        gap.causeSlice = launch;
                    }
                }
                gaps.push_back(gap);
            }
        }
    }
    std::sort(gaps.begin(), gaps.end(), [](const IdleGap& a, const IdleGap& b) { return a.start < b.start; });
    return gaps;
}

std::optional<Insight> detectGpuIdle(const InsightContext& context, const std::vector<IdleGap>& gaps)
{
    std::array<double, kIdleCauseCount> byCause{};
    double idleNs = 0.0;
    for (const IdleGap& gap : gaps) {
        byCause[std::size_t(gap.cause)] += double(gap.end - gap.start);
        idleNs += double(gap.end - gap.start);
    }
    if (gaps.empty() || context.shareOf(context.gpuStepUs(idleNs)) < thresholds::kGpuIdleMinShare)
        return std::nullopt;
    const auto dominant = IdleCause(std::max_element(byCause.begin(), byCause.end()) - byCause.begin());
    Insight insight;
    insight.id = "gpu-idle";
    insight.cause = std::string(idleCauseKey(dominant));
    context.setGpuTime(insight, idleNs);
    insight.evidence = gapEvidence(context, gaps);
    const std::string who = context.gpuCount > 1 ? printfString("Each of the %.0f GPUs", context.gpuCount) : "The GPU";
    insight.title = printfString("%s is idle %s per step%s (%.0f %%), mostly %s", who.c_str(),
                                 formatUs(insight.timeUs).c_str(), context.gpuCount > 1 ? " on average" : "",
                                 insight.share * 100.0, std::string(idleCauseName(dominant)).c_str());
    for (std::size_t c = 0; c < kIdleCauseCount; ++c)
        insight.figures.emplace_back(std::string(idleCauseKey(IdleCause(c))) + "_us", context.gpuStepUs(byCause[c]));
    insight.figures.emplace_back("gpus", context.gpuCount);
    insight.explanation =
        "Inside the steps the GPU has stretches with nothing to run (gaps of at least 10 µs between its "
        "ops). Each gap is attributed to what the host did meanwhile: loading data (a DataLoader range "
        "covers it), a host sync (a synchronize or blocking copy was under way), CPU launch-bound (the "
        "next kernel's launch call was still running on the CPU), or unknown.";
    switch (dominant) {
    case IdleCause::DataLoading:
        insight.advice = "Load batches in parallel with compute: DataLoader(num_workers=N, pin_memory=True, "
                         "persistent_workers=True) and prefetching.";
        break;
    case IdleCause::HostSync:
        insight.advice = "Remove the per-step syncs (see host-sync): no .item()/.cpu()/print of GPU tensors "
                         "and no torch.cuda.synchronize() inside the step.";
        break;
    case IdleCause::LaunchBound:
        insight.advice = "Launch fewer, larger kernels (see launch-bound): CUDA graphs, torch.compile, larger "
                         "batches, fused optimizers.";
        break;
    case IdleCause::Unknown:
        insight.advice = "Look at the host threads during the longest gaps (the evidence): the GPU waited "
                         "for something the profiler did not name (Python work, locks, other processes).";
        break;
    }
    return insight;
}

std::optional<Insight> detectLaunchBound(const InsightContext& context, const std::vector<IdleGap>& gaps)
{
    const auto& slices = context.trace.slices();
    std::vector<TimeNs> kernelDurations;
    double kernelNs = 0.0;
    for (const SliceId s : kernelsInSteps(context)) {
        kernelDurations.push_back(slices.duration[s]);
        kernelNs += double(slices.duration[s]);
    }
    std::vector<TimeNs> launchDurations;
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (context.facts.kinds[s] == facts::PluginKind::Runtime
            && contains(context.trace.str(slices.name[s]), "Launch") && context.hostInSteps(s))
            launchDurations.push_back(slices.duration[s]);
    }
    std::vector<IdleGap> launchGaps;
    double launchIdleNs = 0.0;
    for (const IdleGap& gap : gaps) {
        if (gap.cause == IdleCause::LaunchBound) {
            launchGaps.push_back(gap);
            launchIdleNs += double(gap.end - gap.start);
        }
    }
    const double medianKernel = median(kernelDurations), medianLaunch = median(launchDurations);
    const double busyShare = context.meanStepNs > 0 ? context.shareOf(context.gpuStepUs(kernelNs)) : 1.0;
    if (kernelDurations.empty() || launchDurations.empty() || medianKernel >= medianLaunch
        || busyShare >= thresholds::kLaunchBoundMaxGpuBusy || launchGaps.empty())
        return std::nullopt;
    Insight insight;
    insight.id = "launch-bound";
    context.setGpuTime(insight, launchIdleNs);
    insight.evidence = gapEvidence(context, std::move(launchGaps));
    const double kernelsPerStep = double(kernelDurations.size()) / context.stepCount;
    insight.title = printfString("Launch-bound: %.0f kernels per step, median %s each vs %s per launch call; "
                                 "the GPU%s busy %.0f %% of the step",
                                 kernelsPerStep, formatDuration(TimeNs(medianKernel)).c_str(),
                                 formatDuration(TimeNs(medianLaunch)).c_str(),
                                 context.gpuCount > 1 ? "s are on average" : " is", busyShare * 100.0);
    insight.explanation =
        "The kernels are so short that the CPU needs longer to launch each one than the GPU needs to run "
        "it: the GPU keeps waiting for the next launch. The time at stake is the GPU idle time spent "
        "waiting for launches.";
    insight.advice = "Cut the number of launches: capture the step in a CUDA graph (torch.cuda.graphs or "
                     "torch.compile(mode=\"reduce-overhead\")), fuse ops with torch.compile, use larger batches, and "
                     "fused/foreach optimizers (e.g. AdamW(fused=True)).";
    insight.figures = {{"kernels_per_step", kernelsPerStep},
                       {"median_kernel_us", medianKernel / 1000.0},
                       {"median_launch_us", medianLaunch / 1000.0},
                       {"gpu_busy_share", busyShare}};
    return insight;
}

} // namespace ks::analysis::detail
