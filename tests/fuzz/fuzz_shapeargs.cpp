// The shape-args parser and the FLOP rules on arbitrary event text: every rule is tried on
// every input, so sizes, ranks and Concrete Inputs of any kind reach each formula. A count
// must never come from an overflow (UBSan traps signed overflow), and a count given must be
// non-negative; absurd sizes must leave a warning.
#include "tests/fuzz/fuzzsupport.h"

#include "core/analysis/flopcount.h"
#include "core/analysis/shapeargs.h"

#include <cstdint>
#include <string_view>

using namespace ks;
using namespace ks::analysis;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const ShapeArgs args = parseShapeArgs(text);
    for (const ShapeInput& input : args.inputs) {
        fuzz::check(!input.hasShape || input.elements().has_value(), "a shape kept without an element count");
        for (const std::int64_t d : input.dims)
            fuzz::check(d >= 0, "a negative size kept");
        (void)input.bytes();
    }
    for (std::size_t i = 0; i < args.inputs.size(); ++i) {
        (void)args.concreteInts(i);
        (void)args.concreteBool(i);
    }
    static constexpr std::string_view kOps[] = {
        "aten::mm",
        "aten::addmm",
        "aten::bmm",
        "aten::baddbmm",
        "aten::matmul",
        "aten::linear",
        "aten::convolution",
        "aten::conv2d",
        "aten::convolution_backward",
        "aten::_scaled_dot_product_flash_attention",
        "aten::_scaled_dot_product_efficient_attention_backward",
        "aten::native_layer_norm",
        "aten::_softmax",
        "aten::embedding",
        "aten::add",
        "aten::copy_",
    };
    for (const std::string_view op : kOps) {
        const OpCost cost = costOf(op, args);
        fuzz::check(!cost.flops || *cost.flops >= 0, "negative FLOPs");
        fuzz::check(!cost.bytes || *cost.bytes >= 0, "negative bytes");
        fuzz::check(cost.flops || !cost.unknownReason.empty(), "no FLOPs and no reason");
    }
    return 0;
}
