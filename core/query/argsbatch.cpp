#include "core/query/argsbatch.h"

#include "core/model/boundedjson.h"

#include <algorithm>

namespace ks::query {

const nlohmann::json& ArgsBatch::argsOf(SliceId slice) const
{
    static const nlohmann::json kNone;
    const auto it = std::lower_bound(m_slices.begin(), m_slices.end(), slice);
    return it != m_slices.end() && *it == slice ? m_args[static_cast<std::size_t>(it - m_slices.begin())] : kNone;
}

bool ArgsBatch::holds(SliceId slice) const { return std::binary_search(m_slices.begin(), m_slices.end(), slice); }

void ArgsBatch::load(const Trace& trace, std::vector<SliceId> slices)
{
    std::sort(slices.begin(), slices.end());
    slices.erase(std::unique(slices.begin(), slices.end()), slices.end());
    m_slices = std::move(slices);
    m_args.assign(m_slices.size(), nlohmann::json());
    constexpr int kMaxDepth = 64; // real args nest 2-5 levels
    trace.forEachEventText(m_slices, [this](SliceId s, std::string_view text) {
        if (text.empty())
            return;
        auto event = parseBoundedJson(text, kMaxDepth);
        if (!event.is_object())
            return;
        const auto it = event.find("args");
        if (it != event.end() && it->is_object()) {
            const auto at = std::lower_bound(m_slices.begin(), m_slices.end(), s);
            m_args[static_cast<std::size_t>(at - m_slices.begin())] = std::move(*it);
        }
    });
}

} // namespace ks::query
