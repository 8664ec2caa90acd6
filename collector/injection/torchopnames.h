#pragma once
// One thread's interned PyTorch operator names (see TorchOpPayload): looked up by the name's
// address (RecordFunction's names of dispatcher ops live as long as the process) and checked
// by its text, since names of record_function labels and autograd nodes live in the
// RecordFunction and their addresses are reused for other names.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ks::injection {

class TorchOpNames {
public:
    // The name's id on this thread; 0 when it has none yet.
    std::uint32_t find(const char* name) noexcept;
    // After the record that carried `name`'s text with `id` went into the ring.
    void remember(const char* name, std::uint32_t id) noexcept;

private:
    struct Slot {
        const char* address = nullptr;
        const std::string* text = nullptr;
        std::uint32_t id = 0;
    };
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>()(s); }
    };
    Slot& slotOf(const char* name) noexcept;

    std::array<Slot, 512> m_slots; // by address: most lookups end here
    std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> m_ids;
};

} // namespace ks::injection
