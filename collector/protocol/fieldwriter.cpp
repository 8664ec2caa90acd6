#include "collector/protocol/fieldwriter.h"

namespace ks::wire::detail {

void FieldWriter::operator()(const std::string& text)
{
    (*this)(static_cast<std::uint32_t>(text.size()));
    m_out.insert(m_out.end(), text.begin(), text.end());
}

void FieldWriter::operator()(const std::vector<std::string>& list)
{
    (*this)(static_cast<std::uint32_t>(list.size()));
    for (const auto& text : list)
        (*this)(text);
}

void writeHeader(std::uint8_t* at, std::uint32_t payloadBytes, RecordType type, std::uint16_t flags)
{
    const auto typeBits = static_cast<std::uint16_t>(type);
    for (int i = 0; i < 4; ++i)
        at[i] = static_cast<std::uint8_t>(payloadBytes >> (8 * i));
    at[4] = static_cast<std::uint8_t>(typeBits);
    at[5] = static_cast<std::uint8_t>(typeBits >> 8);
    at[6] = static_cast<std::uint8_t>(flags);
    at[7] = static_cast<std::uint8_t>(flags >> 8);
}

} // namespace ks::wire::detail
