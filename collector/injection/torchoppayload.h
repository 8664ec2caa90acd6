#pragma once
// A PyTorch operator's start as it travels through a thread's NVTX ring (NvtxRecord::TorchOp):
// the observer's numbers and input sizes in binary, written on the program's thread without
// formatting anything; our sender thread turns it into the very text emit_nvtx would have
// pushed ("aten::mm, seq = 3, op_id = 7, sizes = [[8, 16], [16, 4]]"), so the host parses the
// same MARKER ranges as before. Operator names are interned per thread (TorchOpNames): a
// name's text travels once with its id, later records carry the id only.
#include "collector/injection/torchopsabi.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ks::injection {

struct TorchOpName {
    std::uint32_t id = 0; // 0: not interned (the text travels in every record)
    bool sendText = true; // the text travels with this record (its first on this thread)
};

// Program thread: `op`'s payload into `out` (reused: allocates only for an op larger than any
// before on this thread). An op whose sizes would not fit a ring record goes without sizes.
// False (nothing written) only when `out` cannot grow.
bool encodeTorchOp(const KinetoscopeTorchOp& op, TorchOpName name, std::vector<std::uint8_t>& out) noexcept;

// Sender thread: payloads back into emit_nvtx's texts.
class TorchOpTexts {
public:
    // The text of one payload; empty when it does not decode (a name id never defined).
    std::string_view text(std::string_view payload);

private:
    std::unordered_map<std::uint32_t, std::string> m_names; // defined by the payloads so far
    std::string m_text;
};

} // namespace ks::injection
