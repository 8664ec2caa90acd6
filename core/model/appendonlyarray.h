#pragma once
// An array that only grows, whose elements a builder shares with the models it made: a
// live recording's snapshots share their million GPU-op records instead of each copying them.
// Appending never moves or changes what a holder of share() reads (the first size() elements
// at the time): a full block is left to its holders and the elements move to a larger one.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

namespace ks {

template <typename T>
class AppendOnlyArray {
    // Raw storage: capacity never written costs address space only, not memory.
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

public:
    AppendOnlyArray() = default;
    AppendOnlyArray(AppendOnlyArray&&) noexcept = default;
    AppendOnlyArray& operator=(AppendOnlyArray&&) noexcept = default;
    // A copy shares the elements so far; its own appends go to a block of its own, so that
    // two arrays never write the same element.
    AppendOnlyArray(const AppendOnlyArray& other)
        : m_block(other.m_block)
        , m_size(other.m_size)
        , m_capacity(other.m_size)
    {
    }
    AppendOnlyArray& operator=(const AppendOnlyArray&) = delete;

    std::size_t size() const { return m_size; }
    const T& operator[](std::size_t i) const { return m_block.get()[i]; }

    void reserve(std::size_t n)
    {
        if (n > m_capacity)
            moveTo(n);
    }
    void append(const T& value)
    {
        if (m_size == m_capacity)
            moveTo(m_capacity < 1024 ? 1024 : m_capacity * 2);
        std::memcpy(m_block.get() + m_size, &value, sizeof(T));
        ++m_size;
    }
    // Drops the elements from n on. Elements a holder may read are not written again: the
    // next append after a shrink below a shared size goes to a block of its own.
    void truncate(std::size_t n)
    {
        if (n >= m_size)
            return;
        m_size = n;
        if (m_block.use_count() > 1)
            moveTo(m_capacity);
    }
    // The elements so far, for as long as the holder keeps the pointer.
    std::shared_ptr<const T[]> share() const { return m_block; }

private:
    void moveTo(std::size_t capacity)
    {
        std::shared_ptr<T[]> block(static_cast<T*>(std::malloc(capacity * sizeof(T))), [](T* p) { std::free(p); });
        if (!block)
            throw std::bad_alloc();
        if (m_size)
            std::memcpy(block.get(), m_block.get(), m_size * sizeof(T));
        m_block = std::move(block);
        m_capacity = capacity;
    }

    std::shared_ptr<T[]> m_block;
    std::size_t m_size = 0, m_capacity = 0;
};

} // namespace ks
