#include "core/model/shapeargspool.h"

#include "core/model/trace.h"

#include <functional>

namespace ks {

std::uint64_t ShapeArgsPool::hashOf(const ShapeArgsText& text)
{
    std::uint64_t h = 0;
    for (const std::string_view part : {text.dims, text.types, text.concrete})
        h = (h ^ std::hash<std::string_view>()(part)) * 0x9E3779B97F4A7C15ull + part.size();
    return h;
}

std::uint32_t ShapeArgsPool::intern(const ShapeArgsText& text, std::uint64_t hash)
{
    const auto [it, inserted] = m_lastWithHash.try_emplace(hash, kNoIndex);
    for (std::uint32_t e = it->second; e != kNoIndex; e = m_entries[e].nextWithHash) {
        if (view(e) == text)
            return e;
    }
    const std::size_t bytes = text.dims.size() + text.types.size() + text.concrete.size();
    if (m_text.size() + bytes > kMaxTextBytes) {
        if (inserted)
            m_lastWithHash.erase(it);
        return kNoIndex;
    }
    const auto id = static_cast<std::uint32_t>(m_entries.size());
    m_entries.push_back({static_cast<std::uint32_t>(m_text.size()), static_cast<std::uint32_t>(text.dims.size()),
                         static_cast<std::uint32_t>(text.types.size()),
                         static_cast<std::uint32_t>(text.concrete.size()), it->second});
    m_text.append(text.dims).append(text.types).append(text.concrete);
    it->second = id;
    return id;
}

ShapeArgsText ShapeArgsPool::view(std::uint32_t id) const
{
    const Entry& e = m_entries[id];
    const std::string_view all(m_text);
    return {all.substr(e.offset, e.dims), all.substr(e.offset + e.dims, e.types),
            all.substr(e.offset + e.dims + e.types, e.concrete)};
}

std::size_t ShapeArgsPool::memoryBytes() const
{
    // The hash index: a node of key, id and next pointer per entry, and a bucket.
    return m_text.capacity() + m_entries.capacity() * sizeof(Entry) + m_lastWithHash.size() * 32
        + m_lastWithHash.bucket_count() * sizeof(void*);
}

} // namespace ks
