#pragma once
// PyTorch operators recorded as NVTX ranges (torch.autograd.profiler.emit_nvtx): the range
// text "aten::mm, seq = 3, op_id = 7, sizes = [[8, 16], [16, 4]], input_op_ids = [...]"
// becomes a kineto cpu_op (or a user_annotation for record_function labels) with
// "External id" = op_id, "Sequence number", "Fwd thread id" and "Input Dims"; TorchOpLinker
// links them to the calls and GPU work they contain and forward ops to backward ops.
#include <cstdint>
#include <string>
#include <string_view>

namespace ks::collector {

struct NvtxOp {
    std::string_view name;
    std::int64_t sequence = -1; // "seq = N"; -1 when the text has none
    std::int64_t opId = -1; // "op_id = N" (RecordFunction handle); -1 when absent
    std::string inputDims; // "sizes = [...]" as compact JSON; empty when absent
    bool backward = false; // an autograd node (XBackward0) or the engine's wrapper of one
    bool label = false; // a record_function label (user_annotation), not an operator
};

enum class NvtxOpParse : std::uint8_t {
    NotAnOp, // plain NVTX text: no ", seq = " or ", op_id = " part
    Op,
    Malformed, // looks like an op range but the fields do not parse: stays an NVTX range
};

NvtxOpParse parseNvtxOp(std::string_view text, NvtxOp& op);
// Whether parseNvtxOp() reads `text` as an op range (well formed or not): it has a
// ", seq = " or ", op_id = " part.
bool looksLikeNvtxOp(std::string_view text);

// "autograd::engine::evaluate_function: SumBackward0" -> "SumBackward0", else "".
std::string_view evaluatedNodeName(std::string_view name);

} // namespace ks::collector
