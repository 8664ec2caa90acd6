#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace ks::wire::detail {

// Reads fields from a payload; any overrun marks the whole decode as failed.
class FieldReader {
public:
    explicit FieldReader(std::span<const std::uint8_t> data)
        : m_data(data)
    {
    }
    template <class T>
    requires std::is_integral_v<T>
    void operator()(T& value)
    {
        using U = std::make_unsigned_t<T>;
        if (!take(sizeof(T)))
            return;
        U bits = 0;
        for (std::size_t i = 0; i < sizeof(T); ++i)
            bits |= static_cast<U>(static_cast<U>(m_data[m_pos - sizeof(T) + i]) << (8 * i));
        value = static_cast<T>(bits);
    }
    void operator()(std::string& text);
    void operator()(std::vector<std::string>& list);
    bool ok() const { return m_ok; }

private:
    bool take(std::size_t n);
    std::span<const std::uint8_t> m_data;
    std::size_t m_pos = 0;
    bool m_ok = true;
};

} // namespace ks::wire::detail
