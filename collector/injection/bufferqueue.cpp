#include "collector/injection/bufferqueue.h"

#include <algorithm>

namespace ks::injection {

BufferQueue::BufferQueue(std::size_t capacity)
    : m_slots(std::max<std::size_t>(capacity, 1))
{
}

bool BufferQueue::push(const CompletedBuffer& completed) noexcept
{
    if (m_size == m_slots.size())
        return false;
    m_slots[(m_head + m_size) % m_slots.size()] = completed;
    ++m_size;
    return true;
}

bool BufferQueue::pop(CompletedBuffer& completed) noexcept
{
    if (m_size == 0)
        return false;
    completed = m_slots[m_head];
    m_head = (m_head + 1) % m_slots.size();
    --m_size;
    return true;
}

} // namespace ks::injection
