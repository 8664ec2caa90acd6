#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ks {

using StringId = std::uint32_t;
inline constexpr StringId kEmptyString = 0;

// Interns strings; ids are dense and stable. Id 0 is always the empty string.
class StringPool {
public:
    StringPool();
    // A copy interns the same strings in the same order: the same ids, its own text blocks.
    StringPool(const StringPool& other);
    StringPool& operator=(const StringPool&) = delete;
    StringPool(StringPool&&) noexcept = default;
    StringPool& operator=(StringPool&&) noexcept = default;

    StringId intern(std::string_view text);
    // Returns the id if the text was interned before, else nullopt-like UINT32_MAX.
    StringId find(std::string_view text) const;
    std::string_view view(StringId id) const { return m_views[id]; }
    std::size_t size() const { return m_views.size(); }
    std::size_t memoryBytes() const;

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept;
    };
    // Text lives in fixed-size blocks so views never move.
    std::vector<std::unique_ptr<char[]>> m_blocks;
    char* m_current = nullptr; // block that short strings are appended to
    std::size_t m_blockUsed = 0;
    std::size_t m_textBytes = 0;
    std::vector<std::string_view> m_views;
    std::unordered_map<std::string_view, StringId, Hash, std::equal_to<>> m_index;
};

} // namespace ks
