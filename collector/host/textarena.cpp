#include "collector/host/textarena.h"

#include <algorithm>
#include <cstring>

namespace ks::collector {

// An offset is (chunk index << 32 | position in chunk); a text never spans two chunks.
TextArena::Span TextArena::append(std::string_view text)
{
    std::lock_guard lock(m_mutex);
    if (m_chunks.empty() || m_chunks.back().capacity - m_chunks.back().used < text.size()) {
        Chunk chunk;
        // Chunks double from 4 KiB up to 1 MiB: a short recording costs no zeroed MiB.
        const std::size_t grown = kFirstChunkBytes << std::min<std::size_t>(m_chunks.size(), 8);
        chunk.capacity = std::max(std::min(kChunkBytes, grown), text.size());
        chunk.data = std::make_unique_for_overwrite<char[]>(chunk.capacity);
        m_chunks.push_back(std::move(chunk));
    }
    Chunk& chunk = m_chunks.back();
    std::memcpy(chunk.data.get() + chunk.used, text.data(), text.size());
    const Span span{(static_cast<std::uint64_t>(m_chunks.size() - 1) << 32) | chunk.used,
                    static_cast<std::uint32_t>(text.size())};
    chunk.used += text.size();
    m_bytes += text.size();
    return span;
}

bool TextArena::read(std::uint64_t offset, std::uint32_t length, std::string& out) const
{
    out.clear();
    std::lock_guard lock(m_mutex);
    const std::size_t index = offset >> 32;
    const std::size_t position = offset & 0xffffffffu;
    if (index >= m_chunks.size() || position + length > m_chunks[index].used)
        return false;
    out.assign(m_chunks[index].data.get() + position, length);
    return true;
}

std::size_t TextArena::bytes() const
{
    std::lock_guard lock(m_mutex);
    return m_bytes;
}

} // namespace ks::collector
