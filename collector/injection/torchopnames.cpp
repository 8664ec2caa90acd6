#include "collector/injection/torchopnames.h"

namespace ks::injection {

TorchOpNames::Slot& TorchOpNames::slotOf(const char* name) noexcept
{
    const auto address = reinterpret_cast<std::uintptr_t>(name);
    return m_slots[(address >> 3 ^ address >> 12) % m_slots.size()];
}

std::uint32_t TorchOpNames::find(const char* name) noexcept
{
    Slot& slot = slotOf(name);
    if (slot.address == name && *slot.text == name)
        return slot.id;
    const auto known = m_ids.find(std::string_view(name));
    if (known == m_ids.end())
        return 0;
    slot = Slot{name, &known->first, known->second};
    return known->second;
}

void TorchOpNames::remember(const char* name, std::uint32_t id) noexcept
{
    try {
        const auto [it, inserted] = m_ids.emplace(name, id);
        slotOf(name) = Slot{name, &it->first, it->second};
    } catch (...) {
        // out of memory: the name keeps travelling as text
    }
}

} // namespace ks::injection
