#include "core/model/stringpool.h"

#include "core/model/utf8.h"

#include <cstring>
#include <memory>

namespace ks {

namespace {
constexpr std::size_t kBlockBytes = 1 << 16;
}

std::size_t StringPool::Hash::operator()(std::string_view s) const noexcept
{
    // FNV-1a over 8-byte words: names are short and hashed once per event.
    std::uint64_t h = 1469598103934665603ull;
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        h = (h ^ w) * 1099511628211ull;
        h ^= h >> 29;
    }
    for (; i < s.size(); ++i)
        h = (h ^ static_cast<unsigned char>(s[i])) * 1099511628211ull;
    return static_cast<std::size_t>(h ^ (h >> 32));
}

StringPool::StringPool()
{
    m_views.emplace_back();
    m_index.emplace(std::string_view(), 0);
}

StringPool::StringPool(const StringPool& other)
    : StringPool()
{
    m_views.reserve(other.m_views.size());
    m_index.reserve(other.m_index.size());
    for (std::size_t id = 1; id < other.m_views.size(); ++id)
        intern(other.m_views[id]);
}

StringId StringPool::intern(std::string_view text)
{
    if (auto it = m_index.find(text); it != m_index.end())
        return it->second;
    // The pool holds valid UTF-8 only (core/model/utf8.h), whoever interns: checked once per
    // new string, so the cost is per distinct name, not per event.
    if (utf8::firstInvalid(text) != utf8::kValid)
        return intern(utf8::sanitized(text));
    char* dest;
    if (text.size() > kBlockBytes / 4) {
        // Long names (kernel templates) get a block of their own; the current block stays.
        // Owned before the vector grows: a throwing growth must not leak the block.
        m_blocks.push_back(std::make_unique_for_overwrite<char[]>(text.size()));
        dest = m_blocks.back().get();
    } else {
        if (!m_current || m_blockUsed + text.size() > kBlockBytes) {
            m_blocks.push_back(std::make_unique_for_overwrite<char[]>(kBlockBytes));
            m_current = m_blocks.back().get();
            m_blockUsed = 0;
        }
        dest = m_current + m_blockUsed;
        m_blockUsed += text.size();
    }
    if (!text.empty())
        std::memcpy(dest, text.data(), text.size());
    m_textBytes += text.size();
    const auto id = static_cast<StringId>(m_views.size());
    m_views.emplace_back(dest, text.size());
    m_index.emplace(m_views.back(), id);
    return id;
}

StringId StringPool::find(std::string_view text) const
{
    auto it = m_index.find(text);
    return it == m_index.end() ? UINT32_MAX : it->second;
}

std::size_t StringPool::memoryBytes() const
{
    return m_textBytes + kBlockBytes + m_views.capacity() * sizeof(std::string_view)
        + m_index.size() * (sizeof(std::string_view) + sizeof(StringId) + 2 * sizeof(void*))
        + m_index.bucket_count() * sizeof(void*);
}

} // namespace ks
