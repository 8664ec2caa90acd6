#pragma once
// The distinct shape args of a trace's op events: the raw JSON text of their "Input Dims",
// "Input type" and "Concrete Inputs" arrays, interned by the loader while each event's bytes
// are in cache. Calls of a training loop repeat a few shapes, so the FLOP rules
// (core/analysis/opcosts.h) parse each distinct one once instead of reading every op's text
// back from the file. A slice's entry (SliceTable::shapeArgs) holds exactly what
// analysis::findShapeArgs finds in its text; slices without one are read back as before.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

// The three arrays as written ("" where absent).
struct ShapeArgsText {
    std::string_view dims, types, concrete;
    bool operator==(const ShapeArgsText&) const = default;
};

class ShapeArgsPool {
public:
    // The texts of a pathological file (every call its own shapes) stop being kept past this:
    // their slices get no entry and are read back from the file instead.
    static constexpr std::size_t kMaxTextBytes = std::size_t(16) << 20;

    static constexpr std::uint64_t kNoArgsHash = 0; // hashOf({})
    static std::uint64_t hashOf(const ShapeArgsText& text);
    // The id of `text` (`hash` = hashOf(text), computed by the parsing thread), or kNoIndex
    // when the pool is full.
    std::uint32_t intern(const ShapeArgsText& text, std::uint64_t hash);
    ShapeArgsText view(std::uint32_t id) const;
    std::size_t size() const { return m_entries.size(); }
    std::size_t memoryBytes() const;

private:
    struct Entry {
        std::uint32_t offset; // in m_text: dims, types, concrete back to back
        std::uint32_t dims, types, concrete; // lengths
    };
    // The index: open addressing with linear probing, a power of two of slots, at most half
    // full (a lookup per op of a load: 40 % fewer instructions than std::unordered_map's).
    struct Slot {
        std::uint64_t hash = 0;
        std::uint32_t id = kNoSlot;
    };
    static constexpr std::uint32_t kNoSlot = ~std::uint32_t(0);
    bool holds(const Entry& e, const ShapeArgsText& text) const;
    void growIndex();
    std::string m_text;
    std::vector<Entry> m_entries;
    std::vector<Slot> m_slots;
};

} // namespace ks
