#include "collector/injection/bufferpool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace ks::injection {

BufferPool::BufferPool(std::size_t bufferBytes, std::size_t maxBuffers)
    : m_bufferBytes(bufferBytes)
    , m_maxBuffers(maxBuffers)
{
    m_free.reserve(maxBuffers);
    m_all.reserve(maxBuffers);
}

BufferPool::~BufferPool()
{
    for (auto* buffer : m_all)
        std::free(buffer);
}

std::uint8_t* BufferPool::acquire() noexcept
{
    m_requested.fetch_add(1, std::memory_order_relaxed);
    try {
        {
            std::lock_guard lock(m_mutex);
            if (!m_free.empty()) {
                auto* buffer = m_free.back();
                m_free.pop_back();
                return buffer;
            }
            if (m_all.size() >= m_maxBuffers) {
                m_refused.fetch_add(1, std::memory_order_relaxed);
                return nullptr;
            }
            m_all.push_back(nullptr); // reserve the slot so concurrent callers respect the cap
        }
        auto* buffer = static_cast<std::uint8_t*>(std::calloc(1, m_bufferBytes));
        std::lock_guard lock(m_mutex);
        if (!buffer) {
            m_all.erase(std::find(m_all.begin(), m_all.end(), nullptr));
            m_refused.fetch_add(1, std::memory_order_relaxed);
            return nullptr;
        }
        *std::find(m_all.begin(), m_all.end(), nullptr) = buffer;
        return buffer;
    } catch (...) {
        // Only std::mutex::lock can throw here (the vectors never grow past their reserve).
        m_refused.fetch_add(1, std::memory_order_relaxed);
        return nullptr;
    }
}

void BufferPool::release(std::uint8_t* buffer, std::size_t usedBytes)
{
    // CUPTI runs with ZEROED_OUT_ACTIVITY_BUFFER set: it expects zeroed buffers and skips
    // zeroing them itself on the application thread.
    std::memset(buffer, 0, usedBytes < m_bufferBytes ? usedBytes : m_bufferBytes);
    std::lock_guard lock(m_mutex);
    m_free.push_back(buffer);
}

} // namespace ks::injection
