#include "core/timeline/navigationhistory.h"

#include <utility>

namespace ks {

void NavigationHistory::visit(TraceSlice entry)
{
    if (!entry.valid() || (!m_entries.empty() && m_entries[m_current] == entry))
        return;
    if (!m_entries.empty())
        m_entries.resize(m_current + 1);
    m_entries.push_back(entry);
    if (m_entries.size() > kMaxEntries)
        m_entries.erase(m_entries.begin());
    m_current = m_entries.size() - 1;
}

TraceSlice NavigationHistory::back()
{
    if (!canGoBack())
        return {};
    return m_entries[--m_current];
}

TraceSlice NavigationHistory::forward()
{
    if (!canGoForward())
        return {};
    return m_entries[++m_current];
}

TraceSlice NavigationHistory::current() const { return m_entries.empty() ? TraceSlice{} : m_entries[m_current]; }

void NavigationHistory::remap(const std::function<TraceSlice(TraceSlice)>& map)
{
    std::vector<TraceSlice> kept;
    std::size_t current = 0;
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        const TraceSlice entry = map(m_entries[i]);
        if (entry.valid())
            kept.push_back(entry);
        if (i == m_current && !kept.empty())
            current = kept.size() - 1;
    }
    m_entries = std::move(kept);
    m_current = current;
}

void NavigationHistory::clear()
{
    m_entries.clear();
    m_current = 0;
}

} // namespace ks
