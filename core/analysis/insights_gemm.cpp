// low-gemm-efficiency: GEMM ops (mm, addmm, bmm, baddbmm with recorded shapes) whose kernels
// reach under thresholds::kLowGemmEfficiency of the roof their inputs could run at, per shape,
// with the likely cause where the trace tells it (docs/roofline.md).
#include "core/analysis/insights_detectors.h"
#include "core/analysis/opcosts.h"
#include "core/gpu/occupancy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace ks::analysis::detail {

namespace {

bool isGemmOp(std::string_view name)
{
    return name == "aten::mm" || name == "aten::addmm" || name == "aten::bmm" || name == "aten::baddbmm";
}

// One GEMM shape of one op name and element type, over its calls in the steps.
struct GemmGroup {
    std::string name;
    GemmDims dims;
    ElementType type = ElementType::Unknown;
    double flops = 0.0, ns = 0.0;
    bool tensorCores = false;
    SliceId longestKernel = kNoSlice;
    std::vector<SliceId> kernels;
};

std::string_view typeName(ElementType type)
{
    switch (type) {
    case ElementType::Fp64: return "fp64";
    case ElementType::Fp32: return "fp32";
    case ElementType::Fp16: return "fp16";
    case ElementType::Bf16: return "bf16";
    case ElementType::Fp8: return "fp8";
    default: return "other";
    }
}

// The roof a GEMM's inputs could run at: fp32 counts against TF32 (one setting away), the
// rest against their own type.
std::optional<PeakKind> attainableRoof(ElementType type) { return peakKindOf(type, true); }

// Tensor cores want K and N (the leading dims) in multiples of 16 bytes of elements.
std::int64_t alignmentOf(ElementType type)
{
    const int bytes = elementBytes(type);
    return bytes > 0 ? 16 / bytes : 1;
}

// The tail wave of the GEMM's longest kernel against the SM count: "" when the grid, the
// SM count or the blocks per SM are unknown, or the waves are full enough.
std::string waveCause(const Trace& trace, SliceId kernel)
{
    const GpuOpInfo* info = kernel == kNoSlice ? nullptr : trace.gpuOpInfo(kernel);
    const DeviceProperties* device = info ? trace.deviceFor(info->device) : nullptr;
    if (!info || !device || device->numSms <= 0)
        return {};
    const auto launch = gpu::kernelLaunchOf(*info, device);
    const int perSm = launch ? gpu::maxActiveBlocksPerSm(*device, *launch).value_or(0) : 0;
    if (perSm <= 0)
        return {};
    std::int64_t blocks = 1;
    for (const std::int32_t g : info->grid) {
        if (g <= 0)
            return {};
        blocks *= g; // below 2^40 before, times a 32-bit g: no overflow
        if (blocks > (std::int64_t(1) << 40))
            return {};
    }
    const double wave = double(device->numSms) * double(perSm);
    const double waves = double(blocks) / wave;
    if (waves < thresholds::kMinWaveEfficiency)
        return printfString("%lld blocks fill %.0f %% of one wave of %.0f (%d SMs)", static_cast<long long>(blocks),
                            100.0 * waves, wave, device->numSms);
    const double efficiency = waves / std::ceil(waves);
    if (efficiency >= thresholds::kMinWaveEfficiency)
        return {};
    return printfString("wave quantization: %lld blocks are %.2f waves of %.0f (%d SMs), the last one %.0f %% full",
                        static_cast<long long>(blocks), waves, wave, device->numSms,
                        100.0 * (waves - std::floor(waves)));
}

std::string causesOf(const Trace& trace, const GemmGroup& g)
{
    std::vector<std::string> causes;
    if (g.type == ElementType::Fp32 && !g.tensorCores)
        causes.emplace_back("fp32 without TF32 (SIMT kernels)");
    const std::int64_t smallest = std::min({g.dims.m, g.dims.n, g.dims.k});
    if (smallest < thresholds::kTinyGemmDim)
        causes.push_back(printfString("tiny dims (smallest %lld)", static_cast<long long>(smallest)));
    const std::int64_t align = alignmentOf(g.type);
    if (g.dims.k % align != 0 || g.dims.n % align != 0 || g.dims.m % align != 0)
        causes.push_back(printfString("dims not multiples of %lld", static_cast<long long>(align)));
    if (std::string wave = waveCause(trace, g.longestKernel); !wave.empty())
        causes.push_back(std::move(wave));
    std::string out;
    for (const std::string& c : causes)
        out += (out.empty() ? "" : "; ") + c;
    return out.empty() ? "no cause the trace tells" : out;
}

} // namespace

std::optional<Insight> detectLowGemmEfficiency(const InsightContext& context)
{
    const Trace& trace = context.trace;
    const auto& slices = trace.slices();
    std::vector<SliceId> ops;
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (trace.classOf(s) == SliceClass::CpuOp && isGemmOp(trace.str(slices.name[s])) && context.hostInSteps(s))
            ops.push_back(s);
    }
    if (ops.empty())
        return std::nullopt;
    const OpCosts costs = OpCosts::ofOps(trace, ops);
    const DevicePeaks peaks = resolveDevicePeaks(trace, context.peaks);
    std::map<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, std::int64_t, ElementType>, GemmGroup>
        groups;
    for (const SliceId op : ops) {
        const OpCost* cost = costs.find(op);
        if (!cost || !cost->flops || !cost->gemm)
            continue;
        std::vector<SliceId> kernels;
        for (const SliceId launch : context.facts.links.launchesOf(op)) {
            for (const SliceId gpuOp : context.facts.links.gpuOpsOf(launch)) {
                if (context.facts.kinds[gpuOp] == facts::PluginKind::Kernel)
                    kernels.push_back(gpuOp);
            }
        }
        if (kernels.empty())
            continue;
        const GemmDims& d = *cost->gemm;
        const std::string name(trace.str(slices.name[op]));
        GemmGroup& g = groups[{name, d.batch, d.m, d.n, d.k, cost->type}];
        g.name = name;
        g.dims = d;
        g.type = cost->type;
        g.flops += double(*cost->flops);
        for (const SliceId k : kernels) {
            g.ns += double(slices.duration[k]);
            g.tensorCores = g.tensorCores || gpu::usesTensorCores(trace.str(slices.name[k]));
            if (g.longestKernel == kNoSlice || slices.duration[k] > slices.duration[g.longestKernel])
                g.longestKernel = k;
            g.kernels.push_back(k);
        }
    }
    Insight insight;
    insight.id = "low-gemm-efficiency";
    double atStakeNs = 0.0, lowNs = 0.0, worstFraction = 1.0;
    struct Line {
        double stakeNs;
        std::string text;
    };
    std::vector<Line> lines;
    for (const auto& [key, g] : groups) {
        const auto roof = attainableRoof(g.type);
        const auto peak = roof ? peaks.peakTflops(*roof) : std::nullopt;
        if (!peak || g.ns <= 0)
            continue;
        const double tflops = g.flops / g.ns * 1e-3;
        const double fraction = tflops / *peak;
        if (fraction >= thresholds::kLowGemmEfficiency)
            continue;
        // Reaching the threshold would have taken fraction / threshold of the time.
        const double stake = g.ns * (1.0 - fraction / thresholds::kLowGemmEfficiency);
        atStakeNs += stake;
        lowNs += g.ns;
        worstFraction = std::min(worstFraction, fraction);
        const std::string shape = g.dims.batch > 1
            ? printfString("%lldx[%lldx%lldx%lld]", static_cast<long long>(g.dims.batch),
                           static_cast<long long>(g.dims.m), static_cast<long long>(g.dims.n),
                           static_cast<long long>(g.dims.k))
            : printfString("[%lldx%lldx%lld]", static_cast<long long>(g.dims.m), static_cast<long long>(g.dims.n),
                           static_cast<long long>(g.dims.k));
        lines.push_back(
            {stake,
             printfString("%s %s (MxNxK) %.*s: %.1f TFLOP/s, %.1f %% of %.*s peak, %s per step; %s", g.name.c_str(),
                          shape.c_str(), int(typeName(g.type).size()), typeName(g.type).data(), tflops,
                          100.0 * fraction, int(peakKindName(*roof).size()), peakKindName(*roof).data(),
                          formatUs(context.gpuStepUs(g.ns)).c_str(), causesOf(trace, g).c_str())});
        for (const SliceId k : g.kernels)
            insight.evidence.push_back(evidenceFor(context.facts, k));
    }
    if (insight.evidence.empty() || context.shareOf(context.gpuStepUs(lowNs)) < thresholds::kLowGemmMinShare)
        return std::nullopt;
    std::sort(insight.evidence.begin(), insight.evidence.end(),
              [](const Evidence& a, const Evidence& b) { return a.start < b.start; });
    std::sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.stakeNs > b.stakeNs; });
    context.setGpuTime(insight, atStakeNs);
    insight.title = printfString("%zu GEMM shape%s under %.0f %% of the GPU's peak (%s per step in them)", lines.size(),
                                 lines.size() == 1 ? "" : "s", 100.0 * thresholds::kLowGemmEfficiency,
                                 formatUs(context.gpuStepUs(lowNs)).c_str());
    insight.explanation = printfString("Matrix multiplications whose kernels reach under %.0f %% of the peak of %s "
                                       "(fp32 against TF32, which one setting enables). The time at stake is what "
                                       "they would save at %.0f %% of peak. By time at stake:",
                                       100.0 * thresholds::kLowGemmEfficiency, peaks.name.c_str(),
                                       100.0 * thresholds::kLowGemmEfficiency);
    constexpr std::size_t kMaxLines = 8;
    for (std::size_t i = 0; i < lines.size() && i < kMaxLines; ++i)
        insight.explanation += "\n- " + lines[i].text;
    if (lines.size() > kMaxLines)
        insight.explanation += printfString("\n- and %zu more shapes", lines.size() - kMaxLines);
    insight.advice = "fp32: enable TF32 (torch.set_float32_matmul_precision(\"high\")) or autocast to bf16. Tiny or "
                     "unaligned dims: pad hidden sizes and batch x sequence to multiples of 8 (16-bit) or 16 (fp8), "
                     "batch small GEMMs into one bmm. Wave quantization: pick sizes whose tile count fills the SMs, "
                     "or let torch.compile (max-autotune) choose tiles.";
    insight.figures = {{"gemm_shapes", double(lines.size())},
                       {"worst_peak_fraction", worstFraction},
                       {"threshold_peak_fraction", thresholds::kLowGemmEfficiency}};
    return insight;
}

} // namespace ks::analysis::detail
