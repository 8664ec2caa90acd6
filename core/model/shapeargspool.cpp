#include "core/model/shapeargspool.h"

#include "core/model/trace.h"

#include <algorithm>
#include <cstring>

namespace ks {

namespace {

// One multiply per 8 bytes, for every op of a load (std::hash's Murmur took twice the
// instructions). Each step is a bijection of h, so texts of one length that differ in one
// word never collide; a collision only costs a comparison in intern().
std::uint64_t mixWord(std::uint64_t h, std::uint64_t word)
{
    h = (h ^ word) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

std::uint64_t word(const char* p)
{
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
}

// The first free slot from `hash`'s on (the index is never full).
template <class Slots>
std::size_t freeSlot(const Slots& slots, std::uint64_t hash, std::uint32_t noSlot)
{
    const std::size_t mask = slots.size() - 1;
    std::size_t i = hash & mask;
    while (slots[i].id != noSlot)
        i = (i + 1) & mask;
    return i;
}

} // namespace

std::uint64_t ShapeArgsPool::hashOf(const ShapeArgsText& text)
{
    // Each array's last word overlaps the one before (8 bytes and more); "" leaves h as it is.
    std::uint64_t h = kNoArgsHash;
    const auto mixArray = [&h](std::string_view part) {
        const std::size_t n = part.size();
        if (n >= 8) {
            for (std::size_t i = 0; i + 8 < n; i += 8)
                h = mixWord(h, word(part.data() + i));
            h = mixWord(h ^ n, word(part.data() + n - 8));
        } else if (n > 0) {
            std::uint64_t bytes = 0;
            for (std::size_t i = 0; i < n; ++i)
                bytes |= std::uint64_t(static_cast<unsigned char>(part[i])) << (8 * i);
            h = mixWord(h, bytes ^ (std::uint64_t(n) << 56));
        }
    };
    mixArray(text.dims);
    mixArray(text.types);
    mixArray(text.concrete);
    return h;
}

bool ShapeArgsPool::holds(const Entry& e, const ShapeArgsText& text) const
{
    if (e.dims != text.dims.size() || e.types != text.types.size() || e.concrete != text.concrete.size())
        return false;
    // An absent array's view may have no data pointer, which memcmp must not see.
    const auto same = [](const char* kept, std::string_view part) {
        return part.empty() || std::memcmp(kept, part.data(), part.size()) == 0;
    };
    const char* kept = m_text.data() + e.offset;
    return same(kept, text.dims) && same(kept + e.dims, text.types) && same(kept + e.dims + e.types, text.concrete);
}

std::uint32_t ShapeArgsPool::intern(const ShapeArgsText& text, std::uint64_t hash)
{
    const std::size_t mask = m_slots.size() - 1;
    std::size_t i = hash & mask;
    if (!m_slots.empty()) {
        for (; m_slots[i].id != kNoSlot; i = (i + 1) & mask) {
            if (m_slots[i].hash == hash && holds(m_entries[m_slots[i].id], text))
                return m_slots[i].id;
        }
    }
    const std::size_t bytes = text.dims.size() + text.types.size() + text.concrete.size();
    if (m_text.size() + bytes > kMaxTextBytes)
        return kNoIndex;
    const auto id = static_cast<std::uint32_t>(m_entries.size());
    m_entries.push_back({static_cast<std::uint32_t>(m_text.size()), static_cast<std::uint32_t>(text.dims.size()),
                         static_cast<std::uint32_t>(text.types.size()),
                         static_cast<std::uint32_t>(text.concrete.size())});
    m_text.append(text.dims).append(text.types).append(text.concrete);
    if (2 * m_entries.size() > m_slots.size()) {
        growIndex();
        i = freeSlot(m_slots, hash, kNoSlot);
    }
    m_slots[i] = {hash, id};
    return id;
}

// Doubles the slots; each entry keeps the hash it was interned with.
void ShapeArgsPool::growIndex()
{
    std::vector<Slot> slots(std::max<std::size_t>(64, 2 * m_slots.size()));
    for (const Slot& slot : m_slots) {
        if (slot.id != kNoSlot)
            slots[freeSlot(slots, slot.hash, kNoSlot)] = slot;
    }
    m_slots = std::move(slots);
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
    return m_text.capacity() + m_entries.capacity() * sizeof(Entry) + m_slots.capacity() * sizeof(Slot);
}

} // namespace ks
