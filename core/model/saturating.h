#pragma once
// Totals that saturate at the 64-bit limits. A hostile trace's slices can each last up to
// kMaxTimeNs (2^62 ns) and its copies claim any byte count, so a handful of them overflow a
// signed sum, which is undefined behaviour; a total that large is only a sign of bad input.
#include <cstdint>
#include <limits>

namespace ks {

constexpr std::int64_t saturatingAdd(std::int64_t a, std::int64_t b)
{
    std::int64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum))
        return b < 0 ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
    return sum;
}

constexpr std::int64_t saturatingSubtract(std::int64_t a, std::int64_t b)
{
    std::int64_t difference = 0;
    if (__builtin_sub_overflow(a, b, &difference))
        return b > 0 ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
    return difference;
}

// A total over `count` items, rounded to the nearest unit (torch divides in floating point);
// 0 for none.
constexpr std::int64_t roundedMean(std::int64_t total, std::uint64_t count)
{
    return count ? saturatingAdd(total, std::int64_t(count / 2)) / std::int64_t(count) : 0;
}

} // namespace ks
