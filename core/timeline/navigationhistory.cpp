#include "core/timeline/navigationhistory.h"

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

void NavigationHistory::clear()
{
    m_entries.clear();
    m_current = 0;
}

} // namespace ks
