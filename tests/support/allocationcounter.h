#pragma once
// Counts operator new calls in the test executable that includes it (one translation unit
// per executable): the injection's CUPTI callback paths must not allocate.
#include <atomic>
#include <cstdlib>
#include <new>

namespace ks::testing {
inline std::atomic<long> g_allocations{0};
} // namespace ks::testing

void* operator new(std::size_t bytes)
{
    ks::testing::g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(bytes ? bytes : 1))
        return p;
    throw std::bad_alloc();
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
