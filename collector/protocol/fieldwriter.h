// Appends a record's fields to a frame payload, little-endian; strings as u32 length + bytes.
#pragma once
#include "collector/protocol/records.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace ks::wire::detail {

class FieldWriter {
public:
    explicit FieldWriter(std::vector<std::uint8_t>& out)
        : m_out(out)
    {
    }
    template <class T>
    requires std::is_integral_v<T>
    void operator()(T value)
    {
        using U = std::make_unsigned_t<T>;
        const U bits = static_cast<U>(value);
        for (std::size_t i = 0; i < sizeof(T); ++i)
            m_out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
    }
    void operator()(const std::string& text);
    void operator()(const std::vector<std::string>& list);

private:
    std::vector<std::uint8_t>& m_out;
};

void writeHeader(std::uint8_t* at, std::uint32_t payloadBytes, RecordType type, std::uint16_t flags);

} // namespace ks::wire::detail
