#include "collector/injection/nvtxring.h"

#include <cstring>

namespace ks::injection {
namespace {

constexpr std::size_t roundUp8(std::size_t n) { return (n + 7) & ~std::size_t(7); }

} // namespace

NvtxRing::NvtxRing(std::size_t bytes)
    : m_capacity(bytes & ~std::size_t(7))
    , m_bytes(new std::uint8_t[m_capacity]) // pages are touched only as records arrive
{
}

bool NvtxRing::write(const NvtxRecord& record, std::string_view text) noexcept
{
    if (text.size() > kMaxText)
        text = text.substr(0, kMaxText);
    const std::size_t need = roundUp8(sizeof(Header) + text.size());
    const std::uint64_t head = m_head.load(std::memory_order_relaxed);
    const std::size_t offset = head % m_capacity;
    const std::size_t toEnd = m_capacity - offset;
    const std::size_t skip = toEnd < need ? toEnd : 0; // records never wrap around the end
    const std::uint64_t used = head - m_tail.load(std::memory_order_acquire);
    if (used + skip + need > m_capacity) {
        m_dropped.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    if (skip) {
        // A skip record is only Header's first 8 bytes; toEnd is a multiple of 8.
        const std::uint32_t filler[2] = {static_cast<std::uint32_t>(skip), kSkip};
        std::memcpy(m_bytes.get() + offset, filler, sizeof filler);
    }
    std::uint8_t* at = m_bytes.get() + (head + skip) % m_capacity;
    Header header;
    header.bytes = static_cast<std::uint32_t>(need);
    header.textBytes = static_cast<std::uint32_t>(text.size());
    header.record = record;
    std::memcpy(at, &header, sizeof header);
    std::memcpy(at + sizeof header, text.data(), text.size());
    m_head.store(head + skip + need, std::memory_order_release);
    return true;
}

} // namespace ks::injection
