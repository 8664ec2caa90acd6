// Host-side findings: host-sync, pageable-copy, memcpy-dtod, cpu-bound-dataloader.
#include "core/analysis/insights_detectors.h"

namespace ks::analysis::detail {

namespace {

// GPU ops whose name contains `needle`, inside steps.
std::vector<SliceId> gpuOpsNamed(const InsightContext& context, std::string_view needle)
{
    const auto& slices = context.trace.slices();
    std::vector<SliceId> out;
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (context.facts.kinds[s] == facts::PluginKind::Memcpy
            && context.trace.str(slices.name[s]).find(needle) != std::string_view::npos && context.deviceInSteps(s))
            out.push_back(s);
    }
    std::sort(out.begin(), out.end(), [&](SliceId a, SliceId b) { return slices.start[a] < slices.start[b]; });
    return out;
}

} // namespace

std::optional<Insight> detectHostSync(const InsightContext& context, const std::vector<IdleGap>& gaps)
{
    if (context.hostSyncs.empty())
        return std::nullopt;
    const auto& slices = context.trace.slices();
    Insight insight;
    insight.id = "host-sync";
    // Union of the blocked time and the idle gaps after it: syncs on several threads, or a
    // gap that starts while the host still waits, count once.
    std::vector<gpu::IntervalSet::Interval> blocked, idle;
    for (const SliceId s : context.hostSyncs) {
        blocked.emplace_back(slices.start[s], slices.end(s));
        insight.evidence.push_back(evidenceFor(context.facts, s));
    }
    for (const IdleGap& gap : gaps) {
        if (gap.cause == IdleCause::HostSync)
            idle.emplace_back(gap.start, gap.end);
    }
    const auto blockedSet = gpu::IntervalSet::unionOf(blocked);
    const double blockedNs = double(blockedSet.measure());
    const double idleNs = double(gpu::IntervalSet::unionOf(std::move(idle)).subtracted(blockedSet).measure());
    context.setTime(insight, blockedNs + idleNs);
    const double perStep = double(context.hostSyncs.size()) / context.stepCount;
    insight.title =
        printfString("The CPU waits for the GPU %.3g× per step (%s blocked, %s GPU idle after)", perStep,
                     formatUs(context.perStepUs(blockedNs)).c_str(), formatUs(context.perStepUs(idleNs)).c_str());
    insight.explanation =
        "Each synchronize (and each copy into pageable host memory) stops the Python thread until the GPU "
        "has finished everything queued before it. While it waits the CPU launches nothing, so after the "
        "sync the GPU runs dry until new kernels arrive. Typical causes are loss.item(), .cpu(), printing "
        "a tensor, torch.cuda.synchronize() and tensor.to(device) without non_blocking. The time at stake is "
        "the time blocked plus the GPU idle gaps that follow the syncs.";
    insight.advice = "Keep values on the GPU inside the step: accumulate the loss as a tensor and call .item() every N "
                     "steps or at the end; use non_blocking=True for copies from pinned memory; remove "
                     "torch.cuda.synchronize() from the loop (use CUDA events for timing).";
    insight.figures = {{"syncs_per_step", perStep},
                       {"blocked_us", context.perStepUs(blockedNs)},
                       {"gpu_idle_after_us", context.perStepUs(idleNs)}};
    return insight;
}

std::optional<Insight> detectPageableCopy(const InsightContext& context)
{
    const std::vector<SliceId> copies = gpuOpsNamed(context, "Pageable");
    if (copies.empty())
        return std::nullopt;
    const auto& slices = context.trace.slices();
    Insight insight;
    insight.id = "pageable-copy";
    double copyNs = 0.0, bytes = 0.0, hostNs = 0.0;
    for (const SliceId s : copies) {
        copyNs += double(slices.duration[s]);
        insight.evidence.push_back(evidenceFor(context.facts, s));
        bytes += double(std::max<std::int64_t>(insight.evidence.back().bytes, 0));
        const SliceId launch = context.facts.links.launchOf(s);
        if (launch != kNoSlice)
            hostNs += double(slices.duration[launch]);
    }
    context.setGpuTime(insight, copyNs);
    const double bytesPerStep = bytes / context.stepCount;
    const double perStep = double(copies.size()) / context.stepCount;
    insight.title =
        printfString("%.3g %s per step from pageable memory (%.3g MB, %s on the GPU)", perStep,
                     perStep == 1.0 ? "copy" : "copies", bytesPerStep / 1e6, formatUs(insight.timeUs).c_str());
    insight.explanation =
        "Copies between the GPU and pageable (ordinary) host memory go through a staging buffer: the driver "
        "copies synchronously, the transfer runs well below the bus bandwidth and the CPU thread is blocked "
        "for the whole copy, so it cannot overlap with compute.";
    insight.advice = "Pin the host tensors: DataLoader(pin_memory=True) or tensor.pin_memory(), then copy with "
                     ".to(device, non_blocking=True) so the copy overlaps with the previous step's kernels.";
    insight.figures = {{"copies_per_step", double(copies.size()) / context.stepCount},
                       {"bytes_per_step", bytesPerStep},
                       {"host_blocked_us", context.perStepUs(hostNs)}};
    return insight;
}

std::optional<Insight> detectMemcpyDtod(const InsightContext& context)
{
    const std::vector<SliceId> copies = gpuOpsNamed(context, "DtoD");
    if (copies.empty())
        return std::nullopt;
    const auto& slices = context.trace.slices();
    double copyNs = 0.0;
    for (const SliceId s : copies)
        copyNs += double(slices.duration[s]);
    if (context.shareOf(context.gpuStepUs(copyNs)) < thresholds::kDtodMinShare)
        return std::nullopt;
    Insight insight;
    insight.id = "memcpy-dtod";
    for (const SliceId s : copies)
        insight.evidence.push_back(evidenceFor(context.facts, s));
    context.setGpuTime(insight, copyNs);
    const double perStep = double(copies.size()) / context.stepCount;
    insight.title = printfString("%.3g device-to-device %s per step (%s)", perStep, perStep == 1.0 ? "copy" : "copies",
                                 formatUs(insight.timeUs).c_str());
    insight.explanation =
        "Device-to-device copies move data without computing anything: clone(), contiguous() after a "
        "transpose or permute, torch.cat, non-inplace masked_fill and dtype conversions all make them.";
    insight.advice = "Look at the ops that launch them (the evidence's context): use in-place variants "
                     "(masked_fill_), avoid .contiguous() on tensors that are read once, preallocate outputs instead "
                     "of torch.cat in loops, or let torch.compile fuse them away.";
    return insight;
}

std::optional<Insight> detectSlowDataLoader(const InsightContext& context)
{
    const double loadingNs = double(context.dataLoading.measure());
    if (context.dataLoaderSlices.empty()
        || context.shareOf(context.perStepUs(loadingNs)) < thresholds::kDataLoaderMinShare)
        return std::nullopt;
    Insight insight;
    insight.id = "cpu-bound-dataloader";
    for (const SliceId s : context.dataLoaderSlices)
        insight.evidence.push_back(evidenceFor(context.facts, s));
    context.setTime(insight, loadingNs);
    insight.title = printfString("Data loading takes %s per step (%.0f %% of the step)",
                                 formatUs(insight.timeUs).c_str(), insight.share * 100.0);
    insight.explanation =
        "The training loop waits in the DataLoader's __next__ for the next batch: samples are loaded and "
        "transformed on the main process (or by too few workers) while the GPU has nothing to do.";
    insight.advice = "Load in parallel: DataLoader(num_workers=N, pin_memory=True, persistent_workers=True, "
                     "prefetch_factor=2..4); move heavy decoding or augmentation off the training process or onto "
                     "the GPU.";
    return insight;
}

} // namespace ks::analysis::detail
