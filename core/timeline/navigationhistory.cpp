#include "core/timeline/navigationhistory.h"

namespace ks {

void NavigationHistory::visit(SliceId slice)
{
    if (slice == kNoSlice || (!m_entries.empty() && m_entries[m_current] == slice))
        return;
    if (!m_entries.empty())
        m_entries.resize(m_current + 1);
    m_entries.push_back(slice);
    if (m_entries.size() > kMaxEntries)
        m_entries.erase(m_entries.begin());
    m_current = m_entries.size() - 1;
}

SliceId NavigationHistory::back()
{
    if (!canGoBack())
        return kNoSlice;
    return m_entries[--m_current];
}

SliceId NavigationHistory::forward()
{
    if (!canGoForward())
        return kNoSlice;
    return m_entries[++m_current];
}

SliceId NavigationHistory::current() const
{
    return m_entries.empty() ? kNoSlice : m_entries[m_current];
}

void NavigationHistory::clear()
{
    m_entries.clear();
    m_current = 0;
}

} // namespace ks
