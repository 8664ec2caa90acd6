#pragma once
// FLOPs and bytes of one op call from its shape args (docs/roofline.md). FLOPs follow the
// rules of torch.utils.flop_counter.FlopCounterMode where it has one (a matmul is 2·M·N·K,
// bias and scaling not counted; convolutions 2 × output points × kernel × channels; attention
// its two batched matmuls, five in the backward); native_layer_norm, softmax, embedding and
// elementwise ops, which FlopCounterMode counts as 0, get the documented counts below.
// Bytes are what the op must read and write at least: every tensor input once, every output
// once. Anything the shapes do not tell gets no number, with the reason, never a guess.
#include "core/analysis/shapeargs.h"

#include <optional>
#include <string>
#include <string_view>

namespace ks::analysis {

enum class CostRule : std::uint8_t {
    None, // no rule for this op
    Matmul, // mm, addmm, bmm, baddbmm, matmul, linear
    Convolution,
    ConvolutionBackward,
    Attention, // _scaled_dot_product_{flash,efficient,cudnn}_attention
    AttentionBackward,
    LayerNorm,
    Softmax,
    Embedding,
    Elementwise,
};
std::string_view costRuleName(CostRule rule); // "matmul", "convolution", ...

// GEMM dims of a matmul (per batch) for the efficiency insight.
struct GemmDims {
    std::int64_t batch = 1, m = 0, n = 0, k = 0;
};

struct OpCost {
    CostRule rule = CostRule::None;
    std::optional<std::int64_t> flops; // nullopt: unknown (see unknownReason)
    std::optional<std::int64_t> bytes;
    ElementType type = ElementType::Unknown; // of the math: the first tensor input's
    // Composite ops (linear, matmul, conv2d, _convolution under convolution) whose children
    // carry the same work: their FLOPs are shown on their own row but are not extra work.
    bool composite = false;
    std::optional<GemmDims> gemm;
    std::string unknownReason; // why flops or bytes are missing
};

// The rule for an op name ("aten::mm"); None when there is none.
CostRule costRuleOf(std::string_view opName);
OpCost costOf(std::string_view opName, const ShapeArgs& args);

} // namespace ks::analysis
