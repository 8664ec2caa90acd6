#include "core/analysis/flopcount.h"

#include <algorithm>
#include <array>
#include <span>

namespace ks::analysis {

namespace {

using Count = std::optional<std::int64_t>;

// The variant of a rule an op name takes: where its tensors and int lists sit.
enum class Form : std::uint8_t {
    Mm,
    Addmm,
    Bmm,
    Baddbmm,
    Matmul,
    Linear,
    Convolution, // convolution, _convolution: (input, weight, bias, stride, padding, dilation, transposed, ...)
    ConvNd, // conv1d/2d/3d: (input, weight, bias, stride, padding, dilation, groups)
    ConvolutionBackward,
    Attention,
    AttentionBackward,
    LayerNorm,
    Softmax,
    Embedding,
    Elementwise, // reads its tensor inputs, writes one output of their broadcast shape
    ElementwiseNoMath, // copy_, fill_, zero_: bytes only, the output being the first input
};

struct OpForm {
    std::string_view name;
    CostRule rule;
    Form form;
    bool composite = false;
};

constexpr OpForm kForms[] = {
    {"aten::mm", CostRule::Matmul, Form::Mm},
    {"aten::addmm", CostRule::Matmul, Form::Addmm},
    {"aten::bmm", CostRule::Matmul, Form::Bmm},
    {"aten::baddbmm", CostRule::Matmul, Form::Baddbmm},
    {"aten::matmul", CostRule::Matmul, Form::Matmul, true},
    {"aten::linear", CostRule::Matmul, Form::Linear, true},
    {"aten::convolution", CostRule::Convolution, Form::Convolution},
    {"aten::_convolution", CostRule::Convolution, Form::Convolution, true},
    {"aten::conv1d", CostRule::Convolution, Form::ConvNd, true},
    {"aten::conv2d", CostRule::Convolution, Form::ConvNd, true},
    {"aten::conv3d", CostRule::Convolution, Form::ConvNd, true},
    {"aten::convolution_backward", CostRule::ConvolutionBackward, Form::ConvolutionBackward},
    {"aten::_scaled_dot_product_flash_attention", CostRule::Attention, Form::Attention},
    {"aten::_scaled_dot_product_efficient_attention", CostRule::Attention, Form::Attention},
    {"aten::_scaled_dot_product_cudnn_attention", CostRule::Attention, Form::Attention},
    {"aten::_scaled_dot_product_flash_attention_backward", CostRule::AttentionBackward, Form::AttentionBackward},
    {"aten::_scaled_dot_product_efficient_attention_backward", CostRule::AttentionBackward, Form::AttentionBackward},
    {"aten::_scaled_dot_product_cudnn_attention_backward", CostRule::AttentionBackward, Form::AttentionBackward},
    {"aten::native_layer_norm", CostRule::LayerNorm, Form::LayerNorm},
    {"aten::layer_norm", CostRule::LayerNorm, Form::LayerNorm, true},
    {"aten::_softmax", CostRule::Softmax, Form::Softmax},
    {"aten::softmax", CostRule::Softmax, Form::Softmax, true},
    {"aten::_log_softmax", CostRule::Softmax, Form::Softmax},
    {"aten::log_softmax", CostRule::Softmax, Form::Softmax, true},
    {"aten::embedding", CostRule::Embedding, Form::Embedding},
    {"aten::add", CostRule::Elementwise, Form::Elementwise},
    {"aten::add_", CostRule::Elementwise, Form::Elementwise},
    {"aten::sub", CostRule::Elementwise, Form::Elementwise},
    {"aten::sub_", CostRule::Elementwise, Form::Elementwise},
    {"aten::mul", CostRule::Elementwise, Form::Elementwise},
    {"aten::mul_", CostRule::Elementwise, Form::Elementwise},
    {"aten::div", CostRule::Elementwise, Form::Elementwise},
    {"aten::div_", CostRule::Elementwise, Form::Elementwise},
    {"aten::neg", CostRule::Elementwise, Form::Elementwise},
    {"aten::exp", CostRule::Elementwise, Form::Elementwise},
    {"aten::sqrt", CostRule::Elementwise, Form::Elementwise},
    {"aten::rsqrt", CostRule::Elementwise, Form::Elementwise},
    {"aten::pow", CostRule::Elementwise, Form::Elementwise},
    {"aten::relu", CostRule::Elementwise, Form::Elementwise},
    {"aten::relu_", CostRule::Elementwise, Form::Elementwise},
    {"aten::gelu", CostRule::Elementwise, Form::Elementwise},
    {"aten::gelu_backward", CostRule::Elementwise, Form::Elementwise},
    {"aten::silu", CostRule::Elementwise, Form::Elementwise},
    {"aten::silu_", CostRule::Elementwise, Form::Elementwise},
    {"aten::silu_backward", CostRule::Elementwise, Form::Elementwise},
    {"aten::sigmoid", CostRule::Elementwise, Form::Elementwise},
    {"aten::sigmoid_backward", CostRule::Elementwise, Form::Elementwise},
    {"aten::tanh", CostRule::Elementwise, Form::Elementwise},
    {"aten::tanh_backward", CostRule::Elementwise, Form::Elementwise},
    {"aten::threshold_backward", CostRule::Elementwise, Form::Elementwise},
    {"aten::addcmul_", CostRule::Elementwise, Form::Elementwise},
    {"aten::addcdiv_", CostRule::Elementwise, Form::Elementwise},
    {"aten::lerp_", CostRule::Elementwise, Form::Elementwise},
    {"aten::copy_", CostRule::Elementwise, Form::ElementwiseNoMath},
    {"aten::fill_", CostRule::Elementwise, Form::ElementwiseNoMath},
    {"aten::zero_", CostRule::Elementwise, Form::ElementwiseNoMath},
};

// Counted per element by the rules FlopCounterMode lacks (docs/roofline.md).
constexpr std::int64_t kLayerNormFlopsPerElement = 5; // mean, variance, normalize, scale, shift
constexpr std::int64_t kSoftmaxFlopsPerElement = 5; // max, subtract, exp, sum, divide

const OpForm* formOf(std::string_view name)
{
    for (const OpForm& f : kForms) {
        if (f.name == name)
            return &f;
    }
    return nullptr;
}

Count times(Count a, Count b) { return checkedMultiply(a, b); }

Count plus(Count a, Count b) { return checkedAdd(a, b); }

// Bytes of every tensor input once; nullopt when one has a shape but no known element size.
Count inputBytes(const ShapeArgs& args)
{
    Count total = 0;
    for (const ShapeInput& in : args.inputs) {
        if (in.hasShape)
            total = plus(total, in.bytes());
    }
    return total;
}

ElementType firstTensorType(const ShapeArgs& args)
{
    for (const ShapeInput& in : args.inputs) {
        if (in.hasShape)
            return in.type;
    }
    return ElementType::Unknown;
}

Count elementBytesOf(ElementType type) { return elementBytes(type) ? Count(elementBytes(type)) : std::nullopt; }

// 2·batch·M·N·K; the dims are recorded for the GEMM insight.
void setMatmul(OpCost& cost, std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k)
{
    cost.gemm = GemmDims{batch, m, n, k};
    cost.flops = checkedProduct({2, batch, m, n, k});
}

// Batch dims of two matmul operands broadcast together (numpy rules); nullopt if they do not.
Count broadcastBatch(std::span<const std::int64_t> a, std::span<const std::int64_t> b)
{
    Count batch = 1;
    const std::size_t rank = std::max(a.size(), b.size());
    for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
        const std::int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
        if (da != db && da != 1 && db != 1)
            return std::nullopt;
        batch = times(batch, std::max(da, db));
    }
    return batch;
}

bool matmulCost(Form form, const ShapeArgs& args, OpCost& cost)
{
    const std::size_t first = form == Form::Addmm || form == Form::Baddbmm ? 1 : 0;
    const ShapeInput* a = args.input(first);
    const ShapeInput* b = args.input(first + 1);
    if (!a || !b || !a->hasShape || !b->hasShape)
        return false;
    const auto& da = a->dims;
    const auto& db = b->dims;
    switch (form) {
    case Form::Mm:
    case Form::Addmm:
        if (da.size() != 2 || db.size() != 2 || da[1] != db[0])
            return false;
        setMatmul(cost, 1, da[0], db[1], da[1]);
        return true;
    case Form::Bmm:
    case Form::Baddbmm:
        if (da.size() != 3 || db.size() != 3 || da[0] != db[0] || da[2] != db[1])
            return false;
        setMatmul(cost, da[0], da[1], db[2], da[2]);
        return true;
    case Form::Linear: { // input [..., in] @ weight[out, in]^T
        if (da.empty() || db.size() != 2 || da.back() != db[1])
            return false;
        const Count rows = checkedProduct(std::vector<std::int64_t>(da.begin(), da.end() - 1));
        if (!rows)
            return false;
        setMatmul(cost, 1, *rows, db[0], db[1]);
        return true;
    }
    case Form::Matmul: { // torch.matmul: 1-D operands gain a dim of 1, batch dims broadcast
        if (da.empty() || db.empty())
            return false;
        const std::int64_t m = da.size() >= 2 ? da[da.size() - 2] : 1;
        const std::int64_t k = da.back();
        const std::int64_t kb = db.size() >= 2 ? db[db.size() - 2] : db[0];
        const std::int64_t n = db.size() >= 2 ? db.back() : 1;
        if (k != kb)
            return false;
        const std::span<const std::int64_t> sa(da), sb(db);
        const Count batch =
            broadcastBatch(sa.first(da.size() >= 2 ? da.size() - 2 : 0), sb.first(db.size() >= 2 ? db.size() - 2 : 0));
        if (!batch)
            return false;
        setMatmul(cost, *batch, m, n, k);
        return true;
    }
    default: return false;
    }
}

// A conv hyper-parameter list of `rank` entries (one value broadcast to all).
std::optional<std::vector<std::int64_t>> spatialList(const ShapeArgs& args, std::size_t index, std::size_t rank)
{
    auto values = args.concreteInts(index);
    if (!values || (values->size() != 1 && values->size() != rank))
        return std::nullopt;
    if (values->size() == 1)
        values->assign(rank, values->front());
    return values;
}

// 2 × batch × prod(conv_shape) × prod(filter) × c_out × c_in: FlopCounterMode's count, where
// conv_shape is the output's spatial dims (the input's for a transposed convolution).
Count convFlops(std::int64_t batch, std::span<const std::int64_t> convShape, std::span<const std::int64_t> filter,
                std::int64_t cOut, std::int64_t cIn)
{
    Count flops = checkedProduct({2, batch, cOut, cIn});
    for (const std::int64_t d : convShape)
        flops = times(flops, d);
    for (const std::int64_t d : filter)
        flops = times(flops, d);
    return flops;
}

bool convolutionCost(Form form, const ShapeArgs& args, OpCost& cost)
{
    const ShapeInput* x = args.input(0);
    const ShapeInput* w = args.input(1);
    if (!x || !w || !x->hasShape || !w->hasShape || x->dims.size() < 3 || x->dims.size() > 5
        || w->dims.size() != x->dims.size()) {
        cost.unknownReason = "input and weight are not 3-D to 5-D tensors of one rank";
        return false;
    }
    const std::size_t spatial = x->dims.size() - 2;
    const auto stride = spatialList(args, 3, spatial);
    const auto padding = spatialList(args, 4, spatial);
    const auto dilation = spatialList(args, 5, spatial);
    const std::optional<bool> transposed = form == Form::ConvNd ? std::optional(false) : args.concreteBool(6);
    const auto groups = args.concreteInts(form == Form::ConvNd ? 6 : 8);
    if (!stride || !padding || !dilation || !transposed || !groups || groups->size() != 1 || groups->front() <= 0) {
        cost.unknownReason = "stride, padding, dilation, transposed or groups not recorded (Concrete Inputs)";
        return false;
    }
    const std::span<const std::int64_t> xs(x->dims), ws(w->dims);
    std::vector<std::int64_t> outSpatial(spatial);
    for (std::size_t i = 0; i < spatial; ++i) {
        const std::int64_t in = xs[2 + i], k = ws[2 + i], s = (*stride)[i], p = (*padding)[i], d = (*dilation)[i];
        if (s <= 0 || d <= 0 || p < 0 || in > (std::int64_t(1) << 40) || k > (std::int64_t(1) << 40)
            || s > (std::int64_t(1) << 20) || p > (std::int64_t(1) << 40) || d > (std::int64_t(1) << 20)) {
            cost.unknownReason = "absurd convolution parameters";
            return false;
        }
        // Bounded above, so these cannot overflow.
        outSpatial[i] = *transposed ? (in - 1) * s - 2 * p + d * (k - 1) + 1 : (in + 2 * p - d * (k - 1) - 1) / s + 1;
        if (outSpatial[i] <= 0) {
            cost.unknownReason = "the output would be empty";
            return false;
        }
    }
    cost.flops = convFlops(xs[0], *transposed ? xs.subspan(2) : std::span<const std::int64_t>(outSpatial),
                           ws.subspan(2), ws[0], ws[1]);
    const std::int64_t cOut = *transposed ? checkedMultiply(ws[1], groups->front()).value_or(-1) : ws[0];
    std::vector<std::int64_t> outDims{xs[0], cOut};
    outDims.insert(outDims.end(), outSpatial.begin(), outSpatial.end());
    cost.bytes = plus(inputBytes(args), times(checkedProduct(outDims), elementBytesOf(x->type)));
    return true;
}

// output_mask of convolution_backward, "[True, True, False]".
std::optional<std::array<bool, 3>> outputMask(const ShapeArgs& args, std::size_t index)
{
    const ShapeInput* in = args.input(index);
    if (!in)
        return std::nullopt;
    std::array<bool, 3> mask{};
    std::size_t n = 0;
    std::string_view text = in->concrete;
    while (n < 3) {
        const std::size_t t = text.find("True"), f = text.find("False");
        if (t == std::string_view::npos && f == std::string_view::npos)
            break;
        mask[n++] = t < f;
        text = text.substr(std::min(t, f) + 4);
    }
    return n == 3 ? std::optional(mask) : std::nullopt;
}

bool convolutionBackwardCost(const ShapeArgs& args, OpCost& cost)
{
    const auto* gout = args.input(0);
    const auto* x = args.input(1);
    const auto* w = args.input(2);
    if (!gout || !x || !w || !gout->hasShape || !x->hasShape || !w->hasShape || x->dims.size() < 3 || x->dims.size() > 5
        || w->dims.size() != x->dims.size() || gout->dims.size() != x->dims.size()) {
        cost.unknownReason = "grad_output, input and weight are not 3-D to 5-D tensors of one rank";
        return false;
    }
    const std::optional<bool> transposed = args.concreteBool(7);
    const auto mask = outputMask(args, 10);
    if (!transposed || !mask) {
        cost.unknownReason = "transposed or output_mask not recorded (Concrete Inputs)";
        return false;
    }
    const std::span<const std::int64_t> g(gout->dims), xs(x->dims), ws(w->dims);
    Count flops = 0;
    if ((*mask)[0]) // grad_input: a transposed convolution of grad_output with the weight
        flops = plus(flops, convFlops(g[0], *transposed ? xs.subspan(2) : g.subspan(2), ws.subspan(2), ws[0], ws[1]));
    if ((*mask)[1]) { // grad_weight: a convolution of the input with grad_output, N and C swapped
        flops = plus(flops,
                     *transposed ? convFlops(g[1], ws.subspan(2), xs.subspan(2), xs[1], xs[0])
                                 : convFlops(xs[1], ws.subspan(2), g.subspan(2), g[1], g[0]));
    }
    cost.flops = flops;
    Count bytes = inputBytes(args);
    if ((*mask)[0])
        bytes = plus(bytes, x->bytes());
    if ((*mask)[1])
        bytes = plus(bytes, w->bytes());
    if ((*mask)[2])
        bytes = plus(bytes, times(g[1], elementBytesOf(gout->type)));
    cost.bytes = bytes;
    return true;
}

// q [b, h, s_q, d], k [b, h, s_k, d], v [b, h, s_k, d_v] from `first` on.
struct AttentionDims {
    std::int64_t b = 0, h = 0, sq = 0, sk = 0, d = 0, dv = 0;
};
std::optional<AttentionDims> attentionDims(const ShapeArgs& args, std::size_t first)
{
    const auto* q = args.dimsOfRank(first, 4);
    const auto* k = args.dimsOfRank(first + 1, 4);
    const auto* v = args.dimsOfRank(first + 2, 4);
    if (!q || !k || !v)
        return std::nullopt;
    const auto& Q = *q;
    const auto& K = *k;
    const auto& V = *v;
    if (Q[0] != K[0] || Q[0] != V[0] || Q[1] != K[1] || Q[1] != V[1] || Q[3] != K[3] || K[2] != V[2])
        return std::nullopt;
    return AttentionDims{Q[0], Q[1], Q[2], K[2], Q[3], V[3]};
}

// A batched matmul [bh, m, k] @ [bh, k, n].
Count bmmFlops(std::int64_t bh, std::int64_t m, std::int64_t k, std::int64_t n)
{
    return checkedProduct({2, bh, m, n, k});
}

bool attentionCost(bool backward, const ShapeArgs& args, OpCost& cost)
{
    const auto dims = attentionDims(args, backward ? 1 : 0);
    if (!dims) {
        cost.unknownReason = "query, key and value are not [batch, heads, seq, dim] tensors that match";
        return false;
    }
    const auto [b, h, sq, sk, d, dv] = *dims;
    const Count bh = checkedProduct({b, h});
    if (!bh)
        return false;
    if (!backward) {
        cost.flops = plus(bmmFlops(*bh, sq, d, sk), bmmFlops(*bh, sq, sk, dv));
        const Count out = times(checkedProduct({*bh, sq, dv}), elementBytesOf(args.inputs[0].type));
        cost.bytes = plus(inputBytes(args), out);
        return true;
    }
    // Scores recomputed, then the gradients of scores @ v (two matmuls) and of q @ k^T (two).
    Count flops = bmmFlops(*bh, sq, d, sk);
    flops = plus(flops, bmmFlops(*bh, sq, dv, sk));
    flops = plus(flops, bmmFlops(*bh, sk, sq, dv));
    flops = plus(flops, bmmFlops(*bh, sq, sk, d));
    flops = plus(flops, bmmFlops(*bh, d, sq, sk));
    cost.flops = flops;
    Count grads = 0; // grad_query, grad_key, grad_value
    for (std::size_t i = 1; i <= 3; ++i)
        grads = plus(grads, args.inputs[i].bytes());
    cost.bytes = plus(inputBytes(args), grads);
    return true;
}

// The broadcast shape of the tensor inputs; nullopt if they do not broadcast.
std::optional<std::vector<std::int64_t>> broadcastShape(const ShapeArgs& args)
{
    std::vector<std::int64_t> shape;
    bool any = false;
    for (const ShapeInput& in : args.inputs) {
        if (!in.hasShape)
            continue;
        any = true;
        const auto& dims = in.dims;
        if (dims.size() > shape.size())
            shape.insert(shape.begin(), dims.size() - shape.size(), 1);
        for (std::size_t i = 0; i < dims.size(); ++i) {
            std::int64_t& out = shape[shape.size() - dims.size() + i];
            if (dims[i] != out && dims[i] != 1 && out != 1)
                return std::nullopt;
            if (out == 1)
                out = dims[i];
        }
    }
    return any ? std::optional(shape) : std::nullopt;
}

bool elementwiseCost(Form form, const ShapeArgs& args, OpCost& cost)
{
    if (form == Form::ElementwiseNoMath) { // the output is the first input: written, not read
        cost.flops = 0;
        cost.bytes = inputBytes(args);
        return args.input(0) && args.inputs[0].hasShape;
    }
    const auto shape = broadcastShape(args);
    if (!shape) {
        cost.unknownReason = "tensor inputs that do not broadcast";
        return false;
    }
    const Count elements = checkedProduct(*shape);
    cost.flops = elements; // one operation per output element
    cost.bytes = plus(inputBytes(args), times(elements, elementBytesOf(cost.type)));
    return true;
}

bool rowwiseCost(std::int64_t flopsPerElement, const ShapeArgs& args, OpCost& cost)
{
    const ShapeInput* x = args.input(0);
    if (!x || !x->hasShape)
        return false;
    cost.flops = times(x->elements(), flopsPerElement);
    cost.bytes = plus(inputBytes(args), x->bytes()); // the inputs, and an output like the input
    return true;
}

bool embeddingCost(const ShapeArgs& args, OpCost& cost)
{
    const ShapeInput* weight = args.input(0);
    const ShapeInput* indices = args.input(1);
    if (!weight || !indices || !weight->hasShape || !indices->hasShape || weight->dims.size() != 2)
        return false;
    cost.type = weight->type;
    cost.flops = 0;
    // The indices, and each looked-up row read once and written once.
    const Count rows = times(times(indices->elements(), weight->dims[1]), elementBytesOf(weight->type));
    cost.bytes = plus(indices->bytes(), times(rows, 2));
    return true;
}

} // namespace

std::string_view costRuleName(CostRule rule)
{
    switch (rule) {
    case CostRule::None: return "none";
    case CostRule::Matmul: return "matmul";
    case CostRule::Convolution: return "convolution";
    case CostRule::ConvolutionBackward: return "convolution_backward";
    case CostRule::Attention: return "attention";
    case CostRule::AttentionBackward: return "attention_backward";
    case CostRule::LayerNorm: return "layer_norm";
    case CostRule::Softmax: return "softmax";
    case CostRule::Embedding: return "embedding";
    case CostRule::Elementwise: return "elementwise";
    }
    return "none";
}

CostRule costRuleOf(std::string_view opName)
{
    const OpForm* form = formOf(opName);
    return form ? form->rule : CostRule::None;
}

OpCost costOf(std::string_view opName, const ShapeArgs& args)
{
    OpCost cost;
    const OpForm* form = formOf(opName);
    if (!form)
        return cost;
    cost.rule = form->rule;
    cost.composite = form->composite;
    if (!args.recorded) {
        cost.unknownReason = "no shapes recorded (record_shapes=False)";
        return cost;
    }
    cost.type = firstTensorType(args);
    bool known = false;
    switch (form->form) {
    case Form::Mm:
    case Form::Addmm:
    case Form::Bmm:
    case Form::Baddbmm:
    case Form::Matmul:
    case Form::Linear:
        known = matmulCost(form->form, args, cost);
        if (known)
            cost.bytes =
                plus(inputBytes(args),
                     times(checkedProduct({cost.gemm->batch, cost.gemm->m, cost.gemm->n}), elementBytesOf(cost.type)));
        else
            cost.unknownReason = "operand shapes that do not multiply";
        break;
    case Form::Convolution:
    case Form::ConvNd: known = convolutionCost(form->form, args, cost); break;
    case Form::ConvolutionBackward: known = convolutionBackwardCost(args, cost); break;
    case Form::Attention: known = attentionCost(false, args, cost); break;
    case Form::AttentionBackward: known = attentionCost(true, args, cost); break;
    case Form::LayerNorm: known = rowwiseCost(kLayerNormFlopsPerElement, args, cost); break;
    case Form::Softmax: known = rowwiseCost(kSoftmaxFlopsPerElement, args, cost); break;
    case Form::Embedding: known = embeddingCost(args, cost); break;
    case Form::Elementwise:
    case Form::ElementwiseNoMath: known = elementwiseCost(form->form, args, cost); break;
    }
    if (!known || !cost.flops) {
        cost.flops.reset();
        cost.gemm.reset();
        if (cost.unknownReason.empty())
            cost.unknownReason = args.warnings.empty() ? "shapes that do not fit the rule" : args.warnings.front();
    }
    if (!known)
        cost.bytes.reset();
    return cost;
}

} // namespace ks::analysis
