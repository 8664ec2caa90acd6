#include "collector/injection/torchoppayload.h"

#include "collector/injection/nvtxring.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace ks::injection {
namespace {

struct Header {
    std::uint32_t nameId = 0;
    std::uint32_t nameBytes = 0; // the name's text follows the header when > 0
    std::int64_t sequence = -1;
    std::uint64_t opId = 0;
    std::uint32_t shapeCount = 0; // then shapeCount uint32 ranks, then dimCount int64 sizes
    std::uint32_t dimCount = 0;
};

void appendNumber(std::string& out, std::int64_t value)
{
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out.append(digits, end);
}

} // namespace

bool encodeTorchOp(const KinetoscopeTorchOp& op, TorchOpName name, std::vector<std::uint8_t>& out) noexcept
{
    Header header;
    header.nameId = name.id;
    if (name.sendText && op.name) // an interned name's length is not needed: no strlen per operator
        header.nameBytes = static_cast<std::uint32_t>(std::min<std::size_t>(std::strlen(op.name), 4096));
    header.sequence = op.sequence;
    header.opId = op.opId;
    header.shapeCount = op.shapeCount;
    header.dimCount = op.dimCount;
    if (!op.ranks || !op.dims) {
        header.shapeCount = 0;
        header.dimCount = 0;
    }
    auto bytes = [&] {
        return sizeof header + header.nameBytes + std::size_t(header.shapeCount) * sizeof(std::uint32_t)
            + std::size_t(header.dimCount) * sizeof(std::int64_t);
    };
    if (bytes() > NvtxRing::kMaxText) { // thousands of inputs: the op goes without sizes
        header.shapeCount = 0;
        header.dimCount = 0;
    }
    try {
        out.resize(bytes());
    } catch (...) {
        return false;
    }
    std::uint8_t* at = out.data();
    std::memcpy(at, &header, sizeof header);
    at += sizeof header;
    if (header.nameBytes)
        std::memcpy(at, op.name, header.nameBytes);
    at += header.nameBytes;
    if (header.shapeCount) {
        std::memcpy(at, op.ranks, header.shapeCount * sizeof(std::uint32_t));
        at += header.shapeCount * sizeof(std::uint32_t);
        std::memcpy(at, op.dims, header.dimCount * sizeof(std::int64_t));
    }
    return true;
}

std::string_view TorchOpTexts::text(std::string_view payload)
{
    Header header;
    if (payload.size() < sizeof header)
        return {};
    std::memcpy(&header, payload.data(), sizeof header);
    payload.remove_prefix(sizeof header);
    const std::size_t rankBytes = std::size_t(header.shapeCount) * sizeof(std::uint32_t);
    if (payload.size() != header.nameBytes + rankBytes + std::size_t(header.dimCount) * sizeof(std::int64_t))
        return {};
    std::string_view name = payload.substr(0, header.nameBytes);
    if (header.nameId != 0) {
        if (header.nameBytes)
            m_names[header.nameId] = std::string(name);
        const auto known = m_names.find(header.nameId);
        if (known == m_names.end())
            return {};
        name = known->second;
    }
    if (name.empty())
        return {};
    // As torch's getNvtxStr writes it (torch/csrc/profiler/util.cpp).
    m_text.assign(name);
    if (header.sequence >= 0) {
        m_text += ", seq = ";
        appendNumber(m_text, header.sequence);
    }
    if (header.opId > 0) {
        m_text += ", op_id = ";
        appendNumber(m_text, static_cast<std::int64_t>(header.opId));
    }
    if (header.shapeCount > 0) {
        const char* ranks = payload.data() + header.nameBytes;
        const char* dims = ranks + rankBytes;
        std::uint32_t dimsLeft = header.dimCount;
        m_text += ", sizes = [";
        for (std::uint32_t i = 0; i < header.shapeCount; ++i) {
            std::uint32_t rank = 0;
            std::memcpy(&rank, ranks + i * sizeof rank, sizeof rank);
            if (rank > dimsLeft)
                return {};
            dimsLeft -= rank;
            m_text += i ? ", [" : "[";
            for (std::uint32_t d = 0; d < rank; ++d) {
                std::int64_t size = 0;
                std::memcpy(&size, dims, sizeof size);
                dims += sizeof size;
                if (d)
                    m_text += ", ";
                appendNumber(m_text, size);
            }
            m_text += ']';
        }
        m_text += ']';
        if (dimsLeft != 0)
            return {};
    }
    return m_text;
}

} // namespace ks::injection
